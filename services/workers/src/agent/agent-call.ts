/**
 * One tool call of an agent step, as its own job: the call the model asked for in a recorded turn,
 * made with what a tool step gets (the tool client's retries, breaker, async polling and streaming;
 * the job's attempts after a crash), and its result recorded in the transcript. A call whose result
 * is recorded is never made again. A call that fails for good records the failure as its result:
 * the model reads it and decides what to do next; only the run's end stops the agent.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { EVENT_PREVIEW_CHARS, TERMINAL_STATUSES } from '@switchyard/contracts';
import type { McpToolSource } from '@switchyard/mcp-tools';
import type { AgentToolTarget, AgentTranscripts, CompiledAgent, CompiledStep, RunStore, StepJob } from '@switchyard/pipeline';
import type { RunAborts } from '../run-aborts.js';
import { attemptsLeft, DEFAULT_STAGE_BUDGET, type StageBudget } from '../stage-budget.js';
import { toRunError } from '../stage-runner.js';
import type { StepTools } from '../tools.js';
import { remoteTaskHooks } from '../engine/step-work.js';
import { boundedResult } from './agent-messages.js';
import type { AgentMetrics } from './agent-metrics.js';
import { callPipeline, type ChildRunDeps } from './pipeline-call.js';

export interface AgentCallDeps extends ChildRunDeps {
  store: RunStore;
  aborts: RunAborts;
  transcripts: AgentTranscripts;
  tools: StepTools;
  mcp: ReadonlyMap<string, McpToolSource>;
  budget?: StageBudget | undefined;
  metrics?: AgentMetrics | undefined;
}

export interface AgentCallOptions {
  job: Job;
  token: string | undefined;
  step: CompiledStep;
  agent: CompiledAgent;
  data: StepJob & { agent_call: NonNullable<StepJob['agent_call']> };
  stage: string;
}

/** The call's result as text: text as it is, anything else as JSON. */
const asText = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'));

export async function runAgentCall(deps: AgentCallDeps, options: AgentCallOptions): Promise<void> {
  const { data, stage, agent } = options;
  const { turn, index } = data.agent_call;
  const runId = data.run_id;
  const key = deps.store.keys.run(runId);
  const [status, done, record] = await Promise.all([deps.store.getStatus(runId), deps.transcripts.result({ key, stage, turn, index }), deps.transcripts.turn({ key, stage, turn })]);
  if (done) return;
  const call = record?.tool_calls[index];
  const tool = call ? agent.tools.get(call.tool) : undefined;
  if (!status || TERMINAL_STATUSES.includes(status)) {
    if (tool?.kind === 'pipeline') await callPipeline(deps, { ...options, runId, tool, args: {}, cancelOnly: true }).catch(() => undefined);
    throw new UnrecoverableError(`run ${runId} is ${status ?? 'gone'}`);
  }
  if (!call || !tool) throw new UnrecoverableError(`${stage}: turn ${turn} has no call ${index} of a known tool`);
  const tracked = deps.aborts.track(runId);
  let result: { content: string; is_error: boolean; outcome: string };
  try {
    const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
    const output = await callTool(deps, { ...options, runId, tool, args, signal: tracked.signal });
    result = { content: boundedResult(asText(output)), is_error: false, outcome: 'ok' };
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    if (tracked.signal.aborted) throw new UnrecoverableError(`run ${runId} has ended`);
    const failure = toRunError(error, stage);
    const left = attemptsLeft({ jobAttempts: options.job.opts.attempts, attemptsMade: options.job.attemptsMade, budget: deps.budget ?? DEFAULT_STAGE_BUDGET });
    if (failure.retryable && left > 0) {
      deps.metrics?.toolCall({ tool: call.tool, outcome: 'retried' });
      throw error instanceof Error ? error : new Error(String(error));
    }
    result = { content: boundedResult(`error: ${failure.code}: ${failure.message}`), is_error: true, outcome: 'failed' };
  } finally {
    tracked.release();
  }
  const recorded = await deps.transcripts.recordResult({ key, stage, turn, index, record: { call_id: call.id, tool: call.tool, content: result.content, is_error: result.is_error, at: new Date().toISOString() } });
  if (!recorded) return;
  deps.metrics?.toolCall({ tool: call.tool, outcome: result.outcome });
  await deps.store.appendEvent(runId, 'tool_result', { stage, turn, call_id: call.id, tool: call.tool, is_error: result.is_error, preview: result.content.slice(0, EVENT_PREVIEW_CHARS) });
}

async function callTool(deps: AgentCallDeps, options: AgentCallOptions & { runId: string; tool: AgentToolTarget; args: Record<string, unknown>; signal: AbortSignal }): Promise<unknown> {
  const { tool, args, signal, step } = options;
  if (tool.kind === 'pipeline') return callPipeline(deps, { ...options, tool });
  if (tool.kind === 'mcp') {
    const source = deps.mcp.get(tool.server);
    if (!source) throw new UnrecoverableError(`no MCP server ${tool.server} is configured in this worker (MCP_SERVERS)`);
    const reply = await source.call({ tool: tool.tool, arguments: args, signal, ...(step.definition.timeout ? { timeoutMs: step.definition.timeout } : {}) });
    return reply.structuredContent ?? reply.content.map((block) => (block && typeof block === 'object' && 'text' in block ? String((block as { text: unknown }).text) : JSON.stringify(block))).join('\n');
  }
  const mode = deps.tools.modeOf(tool.service);
  const hooks = mode === 'async' ? remoteTaskHooks(options.job, options.data.remote_task) : undefined;
  try {
    return await deps.tools.call({ service: tool.service, tool: tool.tool, args, signal, timeoutMs: step.definition.timeout, ...(hooks ? { resumeTask: hooks.resumeTask, onTaskAccepted: hooks.onTaskAccepted } : {}) });
  } catch (error) {
    await hooks?.forget(error);
    throw error;
  }
}
