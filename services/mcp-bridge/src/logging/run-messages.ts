/**
 * How a run event reads as an MCP log message, and at which level: a stage starting or ending is
 * `info`, as is an agent's turn, tool call and tool result (`warning` when the tool failed), a
 * retry or a cut stream `warning`, a failure `error`, the run's end `notice` (or
 * `warning` when cancelled, `error` when failed); progress and streamed text are `debug`.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { StreamEvent } from '@switchyard/pipeline';

export interface RunMessage {
  level: LoggingLevel;
  data: Record<string, unknown> & { message: string };
}

function parse(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');

/** Longest part of a failed tool's answer that its line quotes. */
const ERROR_QUOTE_CHARS = 120;

/** An agent's turn, call or result as one line: `research turn 2: called search_relevant_information`. */
export function agentLine(type: 'turn' | 'tool_call' | 'tool_result', data: Record<string, unknown>): string {
  const at = `${text(data.stage)} turn ${text(data.turn)}`;
  const tool = text(data.tool);
  if (type === 'tool_call') return `${at}: called ${tool}`;
  if (type === 'tool_result') {
    if (data.is_error !== true) return `${at}: ${tool} answered`;
    const quoted = typeof data.preview === 'string' ? data.preview.replace(/\s+/g, ' ').trim().slice(0, ERROR_QUOTE_CHARS) : '';
    return `${at}: ${tool} failed${quoted ? `: ${quoted}` : ''}`;
  }
  const calls = Number(data.tool_calls);
  const usage = data.usage && typeof data.usage === 'object' ? (data.usage as Record<string, unknown>) : {};
  const tokens = Number(usage.prompt_tokens) + Number(usage.completion_tokens);
  const spent = Number.isFinite(tokens) ? ` (${tokens} tokens so far)` : '';
  return calls > 0 ? `${at}: the model asked for ${calls} tool call${calls === 1 ? '' : 's'}${spent}` : `${at}: the model answered${spent}`;
}

export function runMessage(runId: string, event: StreamEvent): RunMessage | undefined {
  const data = parse(event.data);
  const base = { run_id: runId, event: event.type, event_id: event.id };
  switch (event.type) {
    case 'stage': {
      const status = text(data.status);
      const attempt = Number(data.attempt) > 1 ? ` (attempt ${text(data.attempt)})` : '';
      const level: LoggingLevel = status === 'failed' ? 'error' : status === 'retrying' ? 'warning' : 'info';
      const progress = data.progress && typeof data.progress === 'object' ? (data.progress as Record<string, unknown>) : undefined;
      const done = progress ? `: ${text(progress.completed_stages)} of ${text(progress.total_stages)} stages done (${text(progress.percent)}%)` : '';
      return { level, data: { ...base, message: `stage ${text(data.stage)} ${status}${attempt}${done}`, stage: data.stage, status, ...(progress ? { percent: progress.percent } : {}), ...(data.error ? { error: data.error } : {}) } };
    }
    case 'content': {
      // The text itself is the run's to answer (get_run, the story resource): a log line says how much came.
      const chars = typeof data.chunk === 'string' ? data.chunk.length : 0;
      return { level: 'debug', data: { ...base, message: `${chars} characters of ${text(data.section)} streamed`, stage: data.stage, section: data.section, chars } };
    }
    case 'reset':
      return { level: 'warning', data: { ...base, message: `the stream of ${text(data.section)} broke and starts over`, stage: data.stage, section: data.section } };
    case 'error':
      return {
        level: data.will_retry === true ? 'warning' : 'error',
        data: { ...base, message: `${text(data.stage ?? 'run')}: ${text(data.message)}${data.will_retry === true ? ' (will retry)' : ''}`, code: data.code, stage: data.stage },
      };
    case 'done': {
      const status = text(data.status);
      const level: LoggingLevel = status === 'completed' ? 'notice' : status === 'cancelled' ? 'warning' : 'error';
      return { level, data: { ...base, message: `run ${status}`, status, ...(data.error ? { error: data.error } : {}) } };
    }
    case 'turn':
    case 'tool_call':
      return { level: 'info', data: { ...base, message: agentLine(event.type, data), stage: data.stage, turn: data.turn, ...(event.type === 'tool_call' ? { tool: data.tool, call_id: data.call_id } : { tool_calls: data.tool_calls, usage: data.usage }) } };
    case 'tool_result':
      return { level: data.is_error === true ? 'warning' : 'info', data: { ...base, message: agentLine(event.type, data), stage: data.stage, turn: data.turn, tool: data.tool, call_id: data.call_id, is_error: data.is_error === true } };
    default:
      return undefined;
  }
}
