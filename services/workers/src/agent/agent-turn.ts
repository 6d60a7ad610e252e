/**
 * One model turn of an agent step: the conversation so far rebuilt from the transcript, the model
 * asked (its tokens streamed as `content` events), its reply recorded, and then either the step's
 * answer (checked against `output_schema`) or the next turn enqueued with the calls the model asked
 * for as its children. A turn recorded before a crash is not asked again: the job that made it
 * goes on from the record.
 */
import type { Job } from 'bullmq';
import { EVENT_PREVIEW_CHARS } from '@switchyard/contracts';
import { agentCallJobId, agentCallQueue, agentTurnJob, approvalKey, crashPoint, isTruthy, LISTED_REASON_CHARS, type AgentToolCallRecord, type AgentToolTarget, type RunWaits, type AgentTranscript, type AgentTurnEvents, type AgentTranscripts, type AgentTurnRecord, type CompiledAgent, type CompiledPipeline, type CompiledStep, type ExpressionContext, type RunStore, type StepJob, type StepQueues } from '@switchyard/pipeline';
import { ModelCallError, ModelRateLimitWait } from '@switchyard/models';
import { inSpan, SpanKind } from '@switchyard/telemetry';
import { ContentCoalescer } from '../engine/content-coalescer.js';
import { CONTINUE_STAGE, ParkStage, StageFailedError } from '../stage-runner.js';
import { DEFAULT_STAGE_BUDGET, type StageBudget } from '../stage-budget.js';
import { ModelRateLimits } from './model-rate-limits.js';
import { asStepFailure } from '../engine/step-work.js';
import { messageText, modelMessages, parseAnswer } from './agent-messages.js';
import { estimatedPromptTokens, replyTokensByCost, replyTokensLeft } from './agent-budget.js';
import type { AgentToolbox } from './agent-toolbox.js';
import type { AgentMetrics } from './agent-metrics.js';
import { responseFormatFor, type ModelTool as ModelToolSpec } from '@switchyard/models';
import type { AgentModels } from './model-port.js';

export interface AgentTurnDeps {
  store: RunStore;
  waits: RunWaits;
  steps: StepQueues;
  transcripts: AgentTranscripts;
  models: AgentModels;
  toolbox: AgentToolbox;
  metrics?: AgentMetrics | undefined;
  /** Ms a stream's tokens are gathered into one content event (default CONTENT_FLUSH_MS). */
  contentFlushMs?: number | undefined;
  /** Its maxBreakerWaitMs also bounds how long a turn waits on its model's 429s (default DEFAULT_STAGE_BUDGET). */
  budget?: StageBudget | undefined;
}

export interface AgentTurnOptions {
  job: Job;
  /** The job's lock token: a rate-limited turn waits in the delayed set, which needs it. */
  token?: string | undefined;
  pipeline: CompiledPipeline;
  step: CompiledStep;
  agent: CompiledAgent;
  data: StepJob;
  stage: string;
  context: ExpressionContext;
  signal: AbortSignal;
  announce(): void;
}

const preview = (text: string) => text.slice(0, EVENT_PREVIEW_CHARS);
const totalTokens = (t: AgentTranscript) => t.usage.prompt_tokens + t.usage.completion_tokens;

export async function runAgentTurn(deps: AgentTurnDeps, options: AgentTurnOptions): Promise<unknown> {
  const { stage, data } = options;
  const turn = data.agent_turn ?? 1;
  const key = deps.store.keys.run(data.run_id);
  let transcript = await deps.transcripts.read(key, stage, turn);
  if (!transcript.opening) transcript = await openTranscript(deps, options, transcript);
  if (transcript.turns.length < turn) {
    checkBeforeTurn(options, transcript, turn);
    const record = await askModel(deps, options, transcript);
    if (record instanceof ParkStage) return record;
    // The turn and its events in one script call: a crash leaves both or neither.
    const outcome = await deps.transcripts.recordTurn({ key, events: deps.store.keys.events(data.run_id), stage, turn, record, told: turnEvents(options, { turn, record, transcript }) });
    crashPoint('agent.turn-recorded');
    if (outcome === 'ended') throw new Error(`run ${data.run_id} has ended`);
    if (outcome === 'gap') throw new StageFailedError({ code: 'agent_stranded', message: `${stage}: turn ${turn} came before turn ${turn - 1} was recorded` });
    if (outcome === 'recorded') transcript = withTurn(transcript, record);
    else transcript = await deps.transcripts.read(key, stage, turn);
  }
  return afterTurn(deps, options, transcript, turn);
}

/** The transcript with `record` as its next turn, as the script just wrote it: no need to read it back. */
function withTurn(transcript: AgentTranscript, record: AgentTurnRecord): AgentTranscript {
  return {
    ...transcript,
    turns: [...transcript.turns, record],
    results: [...transcript.results, record.tool_calls.map(() => undefined)],
    nudges: [...transcript.nudges, undefined],
    usage: { prompt_tokens: transcript.usage.prompt_tokens + record.usage.prompt_tokens, completion_tokens: transcript.usage.completion_tokens + record.usage.completion_tokens },
    costUsd: transcript.costUsd + (record.cost_usd ?? 0),
    runCostUsd: transcript.runCostUsd + (record.cost_usd ?? 0),
  };
}

/** The first turn evaluates the instructions and the prompt; every later one reads them back. */
async function openTranscript(deps: AgentTurnDeps, options: AgentTurnOptions, transcript: AgentTranscript): Promise<AgentTranscript> {
  const { agent, context, stage } = options;
  const instructions = agent.instructions ? messageText(await agent.instructions.evaluate(context)) : null;
  const prompt = messageText(await agent.prompt.evaluate(context));
  await deps.transcripts.open({ key: deps.store.keys.run(options.data.run_id), stage, model: agent.definition.model, instructions, prompt });
  return { ...transcript, model: agent.definition.model, opening: { instructions, prompt } };
}

function checkBeforeTurn(options: AgentTurnOptions, transcript: AgentTranscript, turn: number): void {
  const { agent, stage } = options;
  if (transcript.turns.length !== turn - 1) throw new StageFailedError({ code: 'agent_stranded', message: `${stage}: turn ${turn} found ${transcript.turns.length} turns recorded` });
  const missing = transcript.results.at(-1)?.findIndex((result) => result === undefined) ?? -1;
  if (missing >= 0) throw new StageFailedError({ code: 'agent_stranded', message: `${stage}: turn ${turn} started before call ${missing} of turn ${turn - 1} had a result` });
  if (totalTokens(transcript) >= agent.definition.max_tokens) throw tokensExceeded(options, transcript);
}

function tokensExceeded(options: AgentTurnOptions, transcript: AgentTranscript, before?: { promptTokens: number }): StageFailedError {
  const max = options.agent.definition.max_tokens;
  const message = before
    ? `${options.stage} used ${totalTokens(transcript)} tokens and its next prompt takes about ${before.promptTokens}, leaving no reply within its max_tokens of ${max}; its transcript is kept`
    : `${options.stage} used ${totalTokens(transcript)} tokens, reaching its max_tokens of ${max}; its transcript is kept`;
  return new StageFailedError({ code: 'agent_tokens_exceeded', message, details: { max_tokens: max, usage: transcript.usage, turns: transcript.turns.length, ...(before ? { next_prompt_tokens: before.promptTokens } : {}) } });
}

function costExceeded(options: AgentTurnOptions, transcript: AgentTranscript, before?: { promptTokens: number }): StageFailedError {
  const max = options.agent.definition.max_cost ?? 0;
  const spent = transcript.costUsd.toFixed(6);
  const message = before
    ? `${options.stage} cost $${spent} and its next prompt of about ${before.promptTokens} tokens leaves no reply within its max_cost of $${max}; its transcript is kept`
    : `${options.stage} cost $${spent}, reaching its max_cost of $${max}; its transcript is kept`;
  return new StageFailedError({ code: 'agent_cost_exceeded', message, details: { max_cost: max, cost_usd: transcript.costUsd, usage: transcript.usage, turns: transcript.turns.length, ...(before ? { next_prompt_tokens: before.promptTokens } : {}) } });
}

/** The run's agents together reached the pipeline's `max_cost` (a run-level bound: its own code, failing the stage that reached it). */
function runCostExceeded(options: AgentTurnOptions, transcript: AgentTranscript, before?: { promptTokens: number }): StageFailedError {
  const max = options.pipeline.stored.definition.max_cost ?? 0;
  const spent = transcript.runCostUsd.toFixed(6);
  const message = before
    ? `the run's agents cost $${spent} and ${options.stage}'s next prompt of about ${before.promptTokens} tokens leaves no reply within the run's max_cost of $${max}; its transcript is kept`
    : `the run's agents cost $${spent} with ${options.stage}'s last turn, reaching the run's max_cost of $${max}; its transcript is kept`;
  return new StageFailedError({ code: 'run_cost_exceeded', message, details: { max_cost: max, run_cost_usd: transcript.runCostUsd, cost_usd: transcript.costUsd, turns: transcript.turns.length, ...(before ? { next_prompt_tokens: before.promptTokens } : {}) } });
}

/**
 * The most tokens the next reply may have within the step's `max_cost` and the run's (the
 * pipeline's), Infinity without either; a `max_cost` on a model with no prices fails the step.
 */
function tokensWithinCost(deps: AgentTurnDeps, options: AgentTurnOptions, transcript: AgentTranscript, promptTokens: number): { step: number; run: number } {
  const { max_cost: maxCost, model } = options.agent.definition;
  const runMax = options.pipeline.stored.definition.max_cost;
  if (maxCost === undefined && runMax === undefined) return { step: Number.POSITIVE_INFINITY, run: Number.POSITIVE_INFINITY };
  const prices = deps.models.pricesOf?.(model);
  const whose = maxCost === undefined ? 'its run has a max_cost' : `${options.stage} has a max_cost`;
  if (!prices) throw new StageFailedError({ code: 'agent_cost_unknown', message: `${whose}, but model ${model} has no prices (MODELS.${model}.prices, or LLM_PRICES for default)`, details: { model } });
  return {
    step: maxCost === undefined ? Number.POSITIVE_INFINITY : replyTokensByCost(maxCost, transcript.costUsd, promptTokens, prices),
    run: runMax === undefined ? Number.POSITIVE_INFINITY : replyTokensByCost(runMax, transcript.runCostUsd, promptTokens, prices),
  };
}

function turnsExceeded(options: AgentTurnOptions, turn: number): StageFailedError {
  const max = options.agent.definition.max_turns;
  return new StageFailedError({ code: 'agent_turns_exceeded', message: `${options.stage} had its ${max} turns (max_turns) and its model still asked for tools; its transcript is kept`, details: { max_turns: max, turns: turn } });
}

async function askModel(deps: AgentTurnDeps, options: AgentTurnOptions, transcript: AgentTranscript): Promise<AgentTurnRecord | ParkStage> {
  const { agent, stage, data } = options;
  const { specs } = await deps.toolbox.specs(agent);
  const messages = modelMessages(transcript);
  const promptTokens = estimatedPromptTokens(transcript, messages, specs);
  const byTokens = replyTokensLeft(agent.definition.max_tokens, transcript, promptTokens);
  if (byTokens < 1) throw tokensExceeded(options, transcript, { promptTokens });
  const byCost = tokensWithinCost(deps, options, transcript, promptTokens);
  if (byCost.step < 1) throw costExceeded(options, transcript, { promptTokens });
  if (byCost.run < 1) throw runCostExceeded(options, transcript, { promptTokens });
  const maxTokens = Math.min(byTokens, byCost.step, byCost.run);
  const schema = agent.definition.output_schema;
  const pending: Promise<unknown>[] = [];
  const append = (write: () => Promise<unknown>) => {
    options.announce();
    pending.push(write());
  };
  const content = new ContentCoalescer({ emit: (text) => append(() => deps.store.appendEvent(data.run_id, 'content', { stage, section: stage, chunk: text })), flushMs: deps.contentFlushMs });
  const started = performance.now();
  try {
    const attributes = { 'switchyard.agent.model': agent.definition.model, 'switchyard.agent.turn': data.agent_turn ?? 1, 'switchyard.stage': stage };
    const reply = await inSpan('agent model turn', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const answer = await deps.models.turn({
        model: agent.definition.model,
        messages,
        tools: specs,
        maxTokens,
        ...(schema ? { responseFormat: responseFormatFor(stage, schema as Record<string, unknown>) } : {}),
        signal: options.signal,
        rateSlot: data.model_slot,
        onToken: (text) => content.push(text),
        onRetry: () => {
          content.drop();
          append(() => deps.store.appendEvent(data.run_id, 'reset', { stage, section: stage }));
        },
      });
      span.setAttributes({ 'switchyard.agent.tool_calls': answer.toolCalls.length, 'switchyard.agent.prompt_tokens': answer.usage.promptTokens, 'switchyard.agent.completion_tokens': answer.usage.completionTokens });
      return answer;
    });
    content.flush();
    deps.metrics?.turn({ model: agent.definition.model, seconds: (performance.now() - started) / 1000, promptTokens: reply.usage.promptTokens, completionTokens: reply.usage.completionTokens, costUsd: reply.costUsd, outcome: 'ok' });
    return {
      content: reply.content,
      tool_calls: reply.toolCalls.map((call) => ({ id: call.id, tool: call.name, arguments: call.arguments })),
      usage: { prompt_tokens: reply.usage.promptTokens, completion_tokens: reply.usage.completionTokens },
      at: new Date().toISOString(),
      finish_reason: reply.finishReason,
      max_tokens: maxTokens,
      bound_by: boundBy(byTokens, byCost),
      ...(reply.costUsd === null ? {} : { cost_usd: reply.costUsd }),
    };
  } catch (error) {
    content.drop();
    // Rate limited (the shared budget has no room yet, or the model said 429): the turn waits, spending no attempt.
    if (error instanceof ModelCallError && error.code === 'model_rate_limited' && (error instanceof ModelRateLimitWait || error.status === 429) && options.token) return waitForModel(deps, options, error);
    deps.metrics?.turn({ model: agent.definition.model, seconds: (performance.now() - started) / 1000, promptTokens: 0, completionTokens: 0, outcome: 'error' });
    // The client retried what retrying may mend; the rest fails the step with the model's own code.
    if (error instanceof ModelCallError && !error.retryable && error.code !== 'model_cancelled') throw new StageFailedError({ code: error.code, message: error.message, details: { status: error.status } });
    throw error;
  } finally {
    await Promise.allSettled(pending);
  }
}

/**
 * Parks the turn in the delayed set until its model may be asked: its reserved place (kept in the
 * job's data, so it keeps its turn), or the end of the pause a 429 set for every worker. The time
 * a turn spends paused by 429s is bounded by the budget's maxBreakerWaitMs (a provider refusing for
 * good, e.g. an exhausted quota); its waits for a place are not (their length is the limit's
 * arithmetic).
 */
async function waitForModel(deps: AgentTurnDeps, options: AgentTurnOptions, error: ModelCallError): Promise<ParkStage> {
  const { job, data, stage } = options;
  const now = Date.now();
  const own = error instanceof ModelRateLimitWait;
  const pauseMs = own ? 0 : (error.retryAfterMs ?? 1000);
  const limitedMs = (data.rate_limited_ms ?? 0) + pauseMs;
  const maxWaitMs = (deps.budget ?? DEFAULT_STAGE_BUDGET).maxBreakerWaitMs;
  if (limitedMs > maxWaitMs) throw new StageFailedError({ code: error.code, message: `${error.message} (the model has refused this turn for ${limitedMs} ms, more than ${maxWaitMs} ms)`, details: { status: error.status } });
  const until = own ? now + ModelRateLimits.parkMs(error.waitMs) : now + pauseMs + Math.floor(Math.random() * 250);
  if (!own && data.rate_limited_ms === undefined) await deps.store.appendEvent(data.run_id, 'error', { code: error.code, message: error.message, stage, retryable: true, will_retry: true });
  await job.updateData({ ...(job.data as object), model_slot: own ? error.slot : undefined, ...(own ? {} : { rate_limited_ms: limitedMs }) });
  return new ParkStage({ until });
}

/** The events that tell a turn: `turn` (with the step's usage so far), then each call it asks for. */
function turnEvents(options: AgentTurnOptions, recorded: { turn: number; record: AgentTurnRecord; transcript: AgentTranscript }): AgentTurnEvents {
  const { stage } = options;
  const { turn, record, transcript } = recorded;
  const usage = { prompt_tokens: transcript.usage.prompt_tokens + record.usage.prompt_tokens, completion_tokens: transcript.usage.completion_tokens + record.usage.completion_tokens };
  return [
    { type: 'turn', data: { stage, turn, tool_calls: record.tool_calls.length, usage } },
    ...record.tool_calls.map((call) => ({ type: 'tool_call' as const, data: { stage, turn, call_id: call.id, tool: call.tool, arguments: preview(call.arguments) } })),
  ];
}

/** After turn `turn` is recorded: the step's answer, or its next turn enqueued. */
async function afterTurn(deps: AgentTurnDeps, options: AgentTurnOptions, transcript: AgentTranscript, turn: number): Promise<unknown> {
  const record = transcript.turns[turn - 1];
  if (!record) throw new StageFailedError({ code: 'agent_stranded', message: `${options.stage}: turn ${turn} is not recorded` });
  const maxCost = options.agent.definition.max_cost;
  if ((maxCost !== undefined && transcript.costUsd > maxCost) || (cutByBudget(record) && record.bound_by === 'max_cost')) throw costExceeded(options, transcript);
  const runMax = options.pipeline.stored.definition.max_cost;
  if ((runMax !== undefined && transcript.runCostUsd > runMax) || (cutByBudget(record) && record.bound_by === 'run_max_cost')) throw runCostExceeded(options, transcript);
  if (totalTokens(transcript) > options.agent.definition.max_tokens || cutByBudget(record)) throw tokensExceeded(options, transcript);
  if (record.tool_calls.length === 0) return answerOf(deps, options, transcript, turn);
  if (turn >= options.agent.definition.max_turns) throw turnsExceeded(options, turn);
  const calls = await checkedCalls(deps, options, record, turn);
  const next = agentTurnJob({ pipeline: options.pipeline, step: options.step, data: options.data, stage: options.stage, turn: turn + 1, calls });
  // A job taken over may have queued its next turn before its worker died. Added again while that
  // turn waits or runs, its calls would come again as new children (the first ones completed and
  // were removed), and one finishing after the turn had gone would leave the turn's `processed`
  // hash behind with no expiry. So a job handed out before adds nothing when the turn is there.
  if (options.job.attemptsStarted > 1 && (await deps.steps.anyExists([next]))) return CONTINUE_STAGE;
  await deps.steps.add([next]);
  crashPoint('agent.next-queued');
  return CONTINUE_STAGE;
}

/** Which budget gave the turn its `max_tokens`. */
function boundBy(byTokens: number, byCost: { step: number; run: number }): AgentTurnRecord['bound_by'] {
  if (byCost.run < byCost.step && byCost.run < byTokens) return 'run_max_cost';
  return byCost.step < byTokens ? 'max_cost' : 'max_tokens';
}

/** The reply stopped at the bound the budget set (not at the model's own, which may be lower): the budget is spent. */
function cutByBudget(record: AgentTurnRecord): boolean {
  return record.finish_reason === 'length' && record.max_tokens !== undefined && record.usage.completion_tokens >= record.max_tokens;
}

/** The model's answer as the step's output; one that breaks `output_schema` goes back to the model once. */
async function answerOf(deps: AgentTurnDeps, options: AgentTurnOptions, transcript: AgentTranscript, turn: number): Promise<unknown> {
  const { agent, stage } = options;
  const schema = agent.definition.output_schema;
  if (!schema) return transcript.turns[turn - 1]?.content ?? '';
  const parsed = parseAnswer(transcript.turns[turn - 1]?.content ?? null);
  const problems = 'problem' in parsed ? [parsed.problem] : agent.outputProblems(parsed.value).map((p) => `${p.path}: ${p.message}`);
  if (problems.length === 0 && 'value' in parsed) return parsed.value;
  const nudged = transcript.nudges.some((nudge) => nudge !== undefined);
  if (nudged || turn >= agent.definition.max_turns) {
    throw new StageFailedError({ code: 'invalid_output', message: `${stage}'s answer does not fit its output_schema${nudged ? ', also after it was told why' : ''}: ${problems.slice(0, 5).join('; ')}`, details: { problems: problems.slice(0, 20), turns: turn } });
  }
  const text = `Your answer does not fit the required output schema: ${problems.slice(0, 10).join('; ')}. Answer again with only JSON that fits this schema: ${JSON.stringify(schema)}`;
  await deps.transcripts.nudge({ key: deps.store.keys.run(options.data.run_id), stage, turn, text });
  await deps.steps.add([agentTurnJob({ pipeline: options.pipeline, step: options.step, data: options.data, stage, turn: turn + 1, calls: [] })]);
  return CONTINUE_STAGE;
}

/**
 * The calls of a turn that may be made. A call of a tool the agent does not have, or whose
 * arguments are not JSON or break the tool's schema, is answered at once with the reason as its
 * result (the model reads it next turn): no job is made for it.
 */
async function checkedCalls(deps: AgentTurnDeps, options: AgentTurnOptions, record: AgentTurnRecord, turn: number): Promise<{ index: number; tool: NonNullable<ReturnType<CompiledAgent['tools']['get']>> }[]> {
  const { agent, stage, data } = options;
  const key = deps.store.keys.run(data.run_id);
  const specs = new Map<string, ModelToolSpec | string>();
  const calls: { index: number; tool: NonNullable<ReturnType<CompiledAgent['tools']['get']>> }[] = [];
  for (const [index, call] of record.tool_calls.entries()) {
    const tool = agent.tools.get(call.tool);
    let refusal: string | undefined;
    if (!tool) refusal = `error: there is no tool ${call.tool} (tools: ${[...agent.tools.keys()].join(', ') || 'none'})`;
    else {
      if (!specs.has(tool.name)) specs.set(tool.name, await deps.toolbox.spec(tool).catch((error: unknown) => (error instanceof Error ? error.message : String(error))));
      const spec = specs.get(tool.name) as ModelToolSpec | string;
      refusal = typeof spec === 'string' ? `error: tool ${call.tool} cannot be called now: ${spec}` : argumentRefusal(deps, spec, call.arguments);
    }
    if (refusal === undefined && tool) {
      calls.push({ index, tool });
      const spec = specs.get(tool.name) as ModelToolSpec;
      if (await needsApproval(tool, call.arguments, options)) {
        await askApproval(deps, options, { turn, index, call, tool, spec, reason: record.content });
        crashPoint('approval.parked');
      }
      continue;
    }
    const text = refusal ?? 'error: refused';
    const event = { stage, turn, call_id: call.id, tool: call.tool, is_error: true, preview: preview(text) };
    const recorded = await deps.transcripts.recordResult({ key, events: deps.store.keys.events(data.run_id), stage, turn, index, record: { call_id: call.id, tool: call.tool, content: text, is_error: true, at: new Date().toISOString() }, event });
    if (recorded) deps.metrics?.toolCall({ tool: call.tool, outcome: 'refused' });
  }
  return calls;
}

function argumentRefusal(deps: AgentTurnDeps, spec: ModelToolSpec, text: string): string | undefined {
  let args: unknown;
  try {
    args = JSON.parse(text || '{}');
  } catch (error) {
    return `error: the arguments are not JSON (${error instanceof Error ? error.message : String(error)}); nothing was called`;
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return 'error: the arguments must be a JSON object; nothing was called';
  const problems = deps.toolbox.problems(spec, args);
  return problems.length > 0 ? `error: the arguments do not fit the tool's schema: ${problems.join('; ')}; nothing was called` : undefined;
}

/** Whether a call waits for a person: its tool says `approval: required`, or its expression holds for the call's arguments. */
async function needsApproval(tool: AgentToolTarget, argumentsText: string, options: AgentTurnOptions): Promise<boolean> {
  if (!tool.approval) return false;
  if (tool.approval === 'required') return true;
  const args = JSON.parse(argumentsText || '{}') as unknown;
  try {
    return isTruthy(await tool.approval.evaluate({ ...options.context, arguments: args }));
  } catch (error) {
    throw asStepFailure(error);
  }
}

/** Records the call as waiting for approval (the run is `waiting`, the inbox lists it); its job parks until it is answered. */
async function askApproval(deps: AgentTurnDeps, options: AgentTurnOptions, ask: { turn: number; index: number; call: AgentToolCallRecord; tool: AgentToolTarget; spec: ModelToolSpec; reason: string | null }): Promise<void> {
  const { data, stage, pipeline } = options;
  const { turn, index, call } = ask;
  const key = approvalKey(call.id, stage, turn, index);
  // The pending event is written with the record; a turn run again after its call was answered finds the wait ended and asks nothing.
  await deps.waits.park({
    kind: 'approval',
    key,
    run_id: data.run_id,
    pipeline: pipeline.name,
    stage,
    created_at: new Date().toISOString(),
    job: { queue: agentCallQueue(ask.tool), id: agentCallJobId(data.run_id, stage, turn, index) },
    tool: call.tool,
    arguments: call.arguments,
    // The start of the reason, and where the whole is (its turn's reply): not copied into each call.
    ...(ask.reason && ask.reason.length > LISTED_REASON_CHARS ? { reason: ask.reason.slice(0, LISTED_REASON_CHARS), reason_turn: turn } : { reason: ask.reason }),
    parameters: ask.spec.parameters,
  }, { stage, kind: 'approval', key, state: 'pending', tool: call.tool, arguments: preview(call.arguments), ...(ask.reason ? { reason: preview(ask.reason) } : {}) });
}
