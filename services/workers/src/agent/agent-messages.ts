/**
 * The conversation a model is asked to continue, rebuilt from the transcript each turn: a turn
 * taken over by another worker asks the same question the first one did.
 */
import type { AgentTranscript } from '@switchyard/pipeline';
import type { ChatMessage as ModelMessage } from '@switchyard/models';

export function modelMessages(transcript: AgentTranscript): ModelMessage[] {
  const messages: ModelMessage[] = [];
  if (transcript.opening?.instructions) messages.push({ role: 'system', content: transcript.opening.instructions });
  if (transcript.opening) messages.push({ role: 'user', content: transcript.opening.prompt });
  transcript.turns.forEach((turn, i) => {
    const calls = turn.tool_calls.map((call) => ({ id: call.id, name: call.tool, arguments: call.arguments }));
    messages.push({ role: 'assistant', content: turn.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    turn.tool_calls.forEach((call, index) => {
      const result = transcript.results[i]?.[index];
      messages.push({ role: 'tool', tool_call_id: call.id, content: result ? result.content : 'error: the call has no result' });
    });
    const nudge = transcript.nudges[i];
    if (nudge) messages.push({ role: 'user', content: nudge });
  });
  return messages;
}

/** An expression's value as a message: text as it is, anything else as JSON. */
export function messageText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value ?? null);
}

/** Tool results longer than this are cut (with a note) before they are recorded and shown to the model: 16 KiB. */
export const MAX_TOOL_RESULT_CHARS = 16 * 1024;

export function boundedResult(text: string, max = MAX_TOOL_RESULT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (cut: ${text.length - max} more characters)`;
}

/** Answer text as JSON: the text itself, or the text inside one ```json fence. */
export function parseAnswer(content: string | null): { value: unknown } | { problem: string } {
  const text = (content ?? '').trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/.exec(text);
  try {
    return { value: JSON.parse(fenced?.[1] ?? text) as unknown };
  } catch (error) {
    return { problem: `the answer is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
