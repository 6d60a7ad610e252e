/**
 * One tool call of an agent step, as its own job: the call the model asked for in a recorded turn,
 * made with what a tool step gets (the tool client's retries, breaker, async polling and streaming;
 * the job's attempts after a crash), and its result recorded in the transcript with its
 * `tool_result` event (one script call). A call whose result is recorded is never made again. A call that fails for good records the failure as its result:
 * the model reads it and decides what to do next; only the run's end stops the agent.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { EVENT_PREVIEW_CHARS, TERMINAL_STATUSES, type RunStatus } from '@switchyard/contracts';
import type { McpToolSource } from '@switchyard/mcp-tools';
import { approvalKey, crashPoint, type AgentToolCallRecord, type AgentToolTarget, type AgentTranscripts, type CompiledAgent, type CompiledStep, type RunStore, type RunWaits, type StepJob } from '@switchyard/pipeline';
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
  waits: RunWaits;
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
  const { status, result: done, turn: record } = await deps.transcripts.callState({ key, stage, turn, index });
  if (done) return;
  const call = record?.tool_calls[index];
  const tool = call ? agent.tools.get(call.tool) : undefined;
  if (!status || TERMINAL_STATUSES.includes(status as RunStatus)) {
    if (tool?.kind === 'pipeline') await callPipeline(deps, { ...options, runId, tool, args: {}, cancelOnly: true }).catch(() => undefined);
    throw new UnrecoverableError(`run ${runId} is ${status ?? 'gone'}`);
  }
  if (!call || !tool) throw new UnrecoverableError(`${stage}: turn ${turn} has no call ${index} of a known tool`);
  const approval = await approvalOf(deps, { ...options, runId, call, tool });
  if (approval.kind === 'park') throw approval.error;
  if (approval.kind === 'refused') return recordCallResult(deps, { ...options, runId, call, result: approval.result });
  const tracked = deps.aborts.track(runId);
  let result: { content: string; is_error: boolean; outcome: string };
  try {
    const args = approval.arguments ?? (JSON.parse(call.arguments || '{}') as Record<string, unknown>);
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
  crashPoint('agent.call-made');
  await recordCallResult(deps, { ...options, runId, call, result });
}

async function recordCallResult(deps: AgentCallDeps, options: AgentCallOptions & { runId: string; call: AgentToolCallRecord; result: { content: string; is_error: boolean; outcome: string } }): Promise<void> {
  const { runId, stage, call, result } = options;
  const { turn, index } = options.data.agent_call;
  const event = { stage, turn, call_id: call.id, tool: call.tool, is_error: result.is_error, preview: result.content.slice(0, EVENT_PREVIEW_CHARS) };
  const record = { call_id: call.id, tool: call.tool, content: result.content, is_error: result.is_error, at: new Date().toISOString() };
  // The result and its event in one script call: a crash leaves both or neither.
  const recorded = await deps.transcripts.recordResult({ key: deps.store.keys.run(runId), events: deps.store.keys.events(runId), stage, turn, index, record, event });
  if (!recorded) return;
  crashPoint('agent.call-recorded');
  deps.metrics?.toolCall({ tool: call.tool, outcome: result.outcome });
}

/** How long an approval is waited for before its job looks again (it is woken by the answer long before). */
const APPROVAL_PARK_MS = 30 * 24 * 3600_000;

type Approval = { kind: 'none' | 'approved'; arguments?: Record<string, unknown> | undefined } | { kind: 'refused'; result: { content: string; is_error: boolean; outcome: string } } | { kind: 'park'; error: DelayedError };

/**
 * Whether a call may be made: no approval asked (made as the model asked), approved (with the
 * arguments a person may have edited), refused (the model reads why), or not answered yet: its job
 * parks in the delayed set, woken by the answer.
 */
async function approvalOf(deps: AgentCallDeps, options: AgentCallOptions & { runId: string; call: AgentToolCallRecord; tool: AgentToolTarget }): Promise<Approval> {
  const { runId, stage, call, job } = options;
  // Only a tool with `approval` has its calls asked about (the turn parks them), and only an asked call is answered.
  if (!options.tool.approval) return { kind: 'none' };
  const { turn, index } = options.data.agent_call;
  const key = approvalKey(call.id, stage, turn, index);
  const decision = await deps.waits.decision(runId, key);
  if (decision) {
    const outcome = decision.approve ? 'approved' : 'refused';
    await deps.waits.resolve(runId, 'approval', key, { stage, outcome, event: { stage, kind: 'approval', key, state: 'resolved', tool: call.tool, outcome } });
    if (decision.approve) return { kind: 'approved', arguments: decision.arguments };
    return { kind: 'refused', result: { content: `refused: a person did not approve this call${decision.note ? `: ${decision.note}` : ''}`, is_error: true, outcome: 'refused' } };
  }
  if (!(await deps.waits.get(runId, 'approval', key))) return { kind: 'none' };
  if (!options.token) throw new Error('an approval is awaited by a job with a lock token');
  await job.moveToDelayed(Date.now() + APPROVAL_PARK_MS, options.token);
  // An answer or a cancel that came before the job was delayed found nothing to wake: it wakes itself.
  const [decided, status] = await Promise.all([deps.waits.decision(runId, key), deps.store.getStatus(runId)]);
  if (decided || !status || TERMINAL_STATUSES.includes(status)) await job.promote().catch(() => undefined);
  return { kind: 'park', error: new DelayedError() };
}

async function callTool(deps: AgentCallDeps, options: AgentCallOptions & { runId: string; tool: AgentToolTarget; args: Record<string, unknown>; signal: AbortSignal }): Promise<unknown> {
  const { tool, args, signal, step } = options;
  if (tool.kind === 'pipeline') return callPipeline(deps, { ...options, tool });
  const { turn, index } = options.data.agent_call;
  // The same key for every attempt and takeover of this call.
  const idempotencyKey = `${options.runId}/${options.stage}/${turn}/${index}`;
  if (tool.kind === 'mcp') {
    const source = deps.mcp.get(tool.server);
    if (!source) throw new UnrecoverableError(`no MCP server ${tool.server} is configured in this worker (MCP_SERVERS)`);
    const reply = await source.call({ tool: tool.tool, arguments: args, signal, idempotencyKey, ...(step.definition.timeout ? { timeoutMs: step.definition.timeout } : {}) });
    return reply.structuredContent ?? reply.content.map((block) => (block && typeof block === 'object' && 'text' in block ? String((block as { text: unknown }).text) : JSON.stringify(block))).join('\n');
  }
  const mode = deps.tools.modeOf(tool.service);
  const hooks = mode === 'async' ? remoteTaskHooks(options.job, options.data.remote_task) : undefined;
  try {
    return await deps.tools.call({ service: tool.service, tool: tool.tool, args, signal, timeoutMs: step.definition.timeout, idempotencyKey, ...(hooks ? { resumeTask: hooks.resumeTask, onTaskAccepted: hooks.onTaskAccepted } : {}) });
  } catch (error) {
    await hooks?.forget(error);
    throw error;
  }
}
