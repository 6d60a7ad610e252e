/**
 * The processor of every step queue. It parses the payload with the job catalog, finds the
 * step in the version of the pipeline its run pinned, and either fans a map step out into one
 * job per item, or runs the step as a stage (start, condition, work, completion) and then
 * advances the run: the steps now ready are enqueued, and the last step ends the run.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { advanceRun, branchKeys, chainParentOf, constantListOf, crashPoint, finishRun, jsonBytesWithin, mapItemTexts, runEndOf, needsAfter, RUN_LIMIT_VARIABLES, stepStateFields, isTruthy, stageOf, StepJob, stepJob, UnusablePipelineError, type CompiledPipeline, type CompiledStep, type ExpressionContext, type PipelineStore, type RunLimits, type RunWaits, type StepQueues } from '@switchyard/pipeline';
import { annotateActiveSpan, tracingEnabled } from '@switchyard/telemetry';
import { CONTINUE_STAGE, FallbackTakenError, ParkStage, handleFailure, markEnded, runStage, SKIP_STAGE, StageFailedError, toRunError, type StageDeps, type StageSpec, type StageWork } from '../stage-runner.js';
import { runAgentCall } from '../agent/agent-call.js';
import { runAgentTurn } from '../agent/agent-turn.js';
import { runWaitStep } from './wait-step.js';
import type { AgentRuntime } from '../agent/agent-runtime.js';
import { DEFAULT_STAGE_BUDGET } from '../stage-budget.js';
import type { StageMetrics } from '../stage-metrics.js';
import { asStepFailure, runStepWork, type StepWorkDeps } from './step-work.js';
import { endChildOfEndedRun, isChildStep, runChildStep } from './child-step.js';
import { afterFallback, fallbackError, fallbackOf } from './fallback.js';

export interface StepProcessorDeps extends StageDeps, StepWorkDeps {
  pipelines: PipelineStore;
  steps: StepQueues;
  /** Times each stage's work (default: not measured). */
  stageMetrics?: StageMetrics | undefined;
  /** Waits for approvals and signals: their records, the inbox. */
  waits: RunWaits;
  /** What agent steps need (models, their tools, transcripts); without it an agent step fails. */
  agents?: AgentRuntime | undefined;
}

function agentRuntime(deps: StepProcessorDeps, stage: string): AgentRuntime {
  if (deps.agents) return deps.agents;
  throw new StageFailedError({ code: 'agents_unavailable', message: `${stage} is an agent step, and this worker runs no agents` });
}

/**
 * Parses a payload. A malformed one cannot be mended by retrying: the job fails for good, and
 * BullMQ's failed event ends its run (see RunReconciler.onJobFailed), as for any job failed
 * outside its stage.
 */
function parseStepJob(job: Job): StepJob {
  const parsed = StepJob.safeParse(job.data);
  if (parsed.success) return parsed.data;
  throw new UnrecoverableError(toRunError(parsed.error, job.name).message);
}

/** The job's step in a version this process has compiled before, at once. */
function knownStep(deps: StepProcessorDeps, data: StepJob): { pipeline: CompiledPipeline; step: CompiledStep } | undefined {
  const pipeline = deps.pipelines.compiledNow(data.pipeline, data.version);
  const step = pipeline?.steps.get(data.step);
  return pipeline && step ? { pipeline, step } : undefined;
}

async function findStep(deps: StepProcessorDeps, job: Job, data: StepJob): Promise<{ pipeline: CompiledPipeline; step: CompiledStep }> {
  let pipeline: CompiledPipeline | null;
  try {
    // The run's version even once deleted: it is kept for the runs that had started on it.
    pipeline = await deps.pipelines.pinned(data.pipeline, data.version);
  } catch (failure) {
    if (!(failure instanceof UnusablePipelineError)) throw failure;
    const error = new StageFailedError({ code: 'pipeline_unusable', message: failure.message });
    throw await handleFailure(deps, job, { runId: data.run_id, name: data.step, error, final: true });
  }
  const step = pipeline?.steps.get(data.step);
  if (pipeline && step) return { pipeline, step };
  const error = new StageFailedError({ code: 'pipeline_missing', message: `pipeline ${data.pipeline} version ${data.version} has no step ${data.step}` });
  throw await handleFailure(deps, job, { runId: data.run_id, name: data.step, error, final: true });
}

/** A map branch's item as its job found it: in its data (jobs added before lists were stored once), or to be read. */
type BranchItem = { value: unknown } | 'missing' | undefined;

function contextOf(data: StepJob, request: unknown, inputs: Record<string, unknown>, item?: BranchItem): ExpressionContext {
  // A skipped step has no output: it is absent, not null.
  const steps: Record<string, unknown> = {};
  for (const name in inputs) if (inputs[name] !== null) steps[name] = inputs[name];
  const context: ExpressionContext = { input: request, steps, run_id: data.run_id };
  if (data.branch) {
    context.item = data.branch.item !== undefined ? data.branch.item : item !== undefined && item !== 'missing' ? item.value : undefined;
    context.index = data.branch.index;
  }
  return context;
}

/**
 * Where a branch finds its item: in its job (jobs added before lists were stored once per run), in
 * the definition's constant list (kept compiled in this process), or else in the run's stored
 * list, which its start reads (`fromRun`).
 */
async function branchItem(step: CompiledStep, branch: NonNullable<StepJob['branch']>): Promise<{ item: BranchItem; fromRun: boolean }> {
  if (branch.item !== undefined) return { item: { value: branch.item }, fromRun: false };
  if (branch.from !== 'definition') return { item: undefined, fromRun: true };
  const list = await constantListOf(step);
  return { item: Array.isArray(list) && branch.index < list.length ? { value: list[branch.index] } : 'missing', fromRun: false };
}

/** Most bytes a step's output may have: a map branch gets its share of the map's bound, as the map's output is all of them together. */
function outputLimit(limits: RunLimits, branch: StepJob['branch']): { bytes: number; variable: string } {
  if (!branch) return { bytes: limits.stepOutputBytes, variable: RUN_LIMIT_VARIABLES.stepOutputBytes };
  const share = Math.floor(limits.mapOutputBytes / (branch.count ?? 1));
  return share < limits.stepOutputBytes ? { bytes: share, variable: RUN_LIMIT_VARIABLES.mapOutputBytes } : { bytes: limits.stepOutputBytes, variable: RUN_LIMIT_VARIABLES.stepOutputBytes };
}

/** The output, unless it is larger than the step may give: then the step fails with `output_too_large`, as for any failure. */
function boundedOutput(output: unknown, stage: string, limit: { bytes: number; variable: string }): unknown {
  if (jsonBytesWithin(output, limit.bytes) !== undefined) return output;
  throw new StageFailedError({ code: 'output_too_large', message: `${stage} gave an output larger than ${limit.bytes} bytes as JSON, the most it may give`, details: { limit_bytes: limit.bytes, variable: limit.variable } });
}

/**
 * A map step: evaluate its list, record its branches once (a retried fan-out finds them) and
 * enqueue one job per item. No items: the step completes with an empty list.
 */
async function fanOut(deps: StepProcessorDeps, job: Job, target: { pipeline: CompiledPipeline; step: CompiledStep; data: StepJob }): Promise<void> {
  const { pipeline, step, data } = target;
  const runId = data.run_id;
  const advance = () => advanceRun({ store: deps.store, steps: deps.steps }, { pipeline, runId, batchId: data.batch_id, flow: data.flow, finished: step.name });
  const peek = await deps.store.startStage({ runId, stage: step.name, batchId: data.batch_id ?? null, inputs: step.needs, withRequest: true, peek: true });
  if (peek.kind === 'missing') throw new UnrecoverableError(`run ${runId} does not exist`);
  if (peek.kind === 'ended') {
    await markEnded(deps, runId, step.name);
    throw new UnrecoverableError(`run ${runId} is ${peek.status}`);
  }
  if (peek.kind === 'done') return advance();
  if (peek.kind === 'started' || peek.kind === 'unready') throw new Error(`a peek answered ${peek.kind}`);
  const context = contextOf(data, peek.request, peek.inputs);
  let items: unknown;
  let texts: string[];
  try {
    if (step.when && !isTruthy(await step.when.evaluate(context))) {
      await deps.store.skipStage({ runId, stage: step.name, batchId: data.batch_id ?? null });
      return advance();
    }
    items = (await step.map?.evaluate(context)) ?? [];
    if (!Array.isArray(items)) {
      const shown = JSON.stringify(items)?.slice(0, 200);
      throw new StageFailedError({ code: 'map_not_a_list', message: `steps.${step.name}.map gave ${typeof items} ${shown}, not a list (JSONata gives a single match as itself: end the expression with [] to keep a list)` });
    }
    texts = mapItemTexts(step.name, items, deps.store.limits);
  } catch (error) {
    throw await handleFailure(deps, job, { runId, name: step.name, error: asStepFailure(error), final: true });
  }
  const list = items as unknown[];
  if (list.length === 0) {
    await deps.store.completeStage({ runId, stage: step.name, batchId: data.batch_id ?? null, output: [] }).recorded;
    return advance();
  }
  const keys = branchKeys(list);
  // The list is stored once for the run; each branch's job names its place in it, not its item.
  const branches = await deps.store.expandStep({ runId, step: step.name, branches: keys.map((key) => stageOf(step.name, key)), items: texts });
  if (!branches) throw new UnrecoverableError(`run ${runId} does not exist`);
  crashPoint('map.expanded');
  const count = list.length;
  await deps.steps.add(keys.map((key, index) => stepJob({ pipeline, step, runId, batchId: data.batch_id, flow: data.flow, branch: { key, index, count, from: 'run' } })));
}

const finalInputsOf = new WeakMap<CompiledPipeline, readonly string[]>();
/** What the step every other leads to reads: every other step's output. */
function finalInputs(pipeline: CompiledPipeline): readonly string[] {
  let inputs = finalInputsOf.get(pipeline);
  if (!inputs) finalInputsOf.set(pipeline, (inputs = pipeline.order.filter((name) => name !== pipeline.finalStep)));
  return inputs;
}

/** The stage a step job runs: what it reads, what it watches, how it ends, and its work. */
function stageSpec(deps: StepProcessorDeps, options: { job: Job; token: string | undefined; pipeline: CompiledPipeline; step: CompiledStep; data: StepJob; stage: string; final: boolean; watch: readonly string[]; branch: { item: BranchItem; fromRun: boolean } }): StageSpec<unknown> {
  const { job, pipeline, step, data, stage, final } = options;
  const limit = outputLimit(deps.store.limits, data.branch);
  const work = async ({ signal, attempt, inputs, request, item, announce }: StageWork): Promise<unknown | typeof CONTINUE_STAGE | ParkStage> => {
    const found = options.branch.fromRun ? item : options.branch.item;
    // A wait that woke looks for its signal again; its condition held when it began.
    if (data.resumed && step.target.kind === 'wait') return boundedOutput(await runWaitStep(deps, { job, pipeline, wait: step.target.wait, data, stage, queue: step.queue }), stage, limit);
    // An agent's later turns read what its first recorded, not the step's expressions.
    if (data.agent_turn !== undefined) return runAgentTurn({ ...deps, ...agentRuntime(deps, stage) }, { job, pipeline, step, agent: (step.target as Extract<CompiledStep['target'], { kind: 'agent' }>).agent, data, stage, context: contextOf(data, request, inputs), signal, announce, token: options.token });
    if (data.branch && (found === undefined || found === 'missing')) throw new StageFailedError({ code: 'map_item_missing', message: `${stage} has no item at index ${data.branch.index} of its step's list` });
    const context = contextOf(data, request, inputs, found);
    const failure = fallbackError(data);
    if (failure) context.error = failure;
    try {
      if (step.when && !data.branch && !isTruthy(await step.when.evaluate(context))) return SKIP_STAGE;
    } catch (error) {
      throw asStepFailure(error);
    }
    let output: unknown;
    if (step.target.kind === 'agent') output = await runAgentTurn({ ...deps, ...agentRuntime(deps, stage) }, { job, pipeline, step, agent: step.target.agent, data, stage, context, signal, announce, token: options.token });
    else if (step.target.kind === 'wait') output = await runWaitStep(deps, { job, pipeline, wait: step.target.wait, data, stage, queue: step.queue });
    else if (isChildStep(step)) output = await runChildStep({ store: deps.store, pipelines: deps.pipelines, queues: { steps: deps.steps } }, { job, token: options.token, step, data, stage, context, announce });
    else output = await runStepWork(deps, { job, step, stage, section: data.branch?.key ?? stage, context, signal, attempt, remoteTask: data.remote_task, announce });
    return output === CONTINUE_STAGE || output instanceof ParkStage ? output : boundedOutput(output, stage, limit);
  };
  const metrics = deps.stageMetrics;
  const spec: StageSpec<unknown> = {
    // An agent's later turns, a wait that woke, and a child step's later looks at its child go on with the stage its first job started.
    resume: data.agent_turn !== undefined || data.resumed === true || (isChildStep(step) && data.child_wait_since !== undefined),
    runId: data.run_id,
    batchId: data.batch_id,
    token: options.token,
    name: stage,
    // An agent's later turns read neither (their prompt was recorded at the start), unless the
    // step ends the run, whose output reads them.
    inputs: final ? finalInputs(pipeline) : data.agent_turn !== undefined ? [] : step.needs,
    withRequest: final || data.agent_turn === undefined,
    ...(options.branch.fromRun && data.branch ? { item: { step: step.name, index: data.branch.index } } : {}),
    // A chain's parent is released by BullMQ, also when a child is removed: it checks first.
    needsDone: step.needs.length === 1 && chainParentOf(pipeline, step.needs[0] as string) === step,
    carried: data.carried,
    work: metrics ? (ctx) => metrics.time(data, { attempt: ctx.attempt, signal: ctx.signal }, () => work(ctx)) : work,
  };
  if (options.watch.length > 0) spec.watch = stepStateFields(options.watch);
  spec.fallback = fallbackOf(deps, { pipeline, step, data });
  const retry = step.definition.retry?.attempts;
  if (retry) spec.budget = { ...(deps.budget ?? DEFAULT_STAGE_BUDGET), maxAttempts: retry };
  // The last step's completion ends its run in the same write.
  if (final) spec.endsRun = (done) => runEndOf({ pipeline, runId: data.run_id, input: done.request, steps: { ...contextOf(data, done.request, done.inputs).steps, [step.name]: done.output }, limits: deps.store.limits });
  return spec;
}

export function stepProcessor(deps: StepProcessorDeps) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = parseStepJob(job);
    if (tracingEnabled()) annotateActiveSpan({ 'switchyard.run.id': data.run_id, 'switchyard.stage': stageOf(data.step, data.branch?.key), 'switchyard.pipeline.name': data.pipeline });
    const { pipeline, step } = knownStep(deps, data) ?? (await findStep(deps, job, data));
    if (step.map && !data.branch) return fanOut(deps, job, { pipeline, step, data });
    const stage = stageOf(step.name, data.branch?.key);
    if (data.agent_call && step.target.kind === 'agent') return runAgentCall({ ...deps, ...agentRuntime(deps, stage) }, { job, token, step, agent: step.target.agent, data: { ...data, agent_call: data.agent_call }, stage });
    // The step every other leads to reads every output when it starts, and ends the run itself.
    const final = step.name === pipeline.finalStep && !data.branch;
    // A job added as a BullMQ child (jobsForStep's chains) has one dependent, its parent, which
    // BullMQ releases once every child has completed: nothing to read or add after it.
    const parented = job.parentKey !== undefined;
    const next = final || parented ? [] : needsAfter(pipeline, step.name);
    const branch = data.branch ? await branchItem(step, data.branch) : { item: undefined, fromRun: false };
    if (isChildStep(step)) await endChildOfEndedRun(deps, data, stage);
    let outcome: Awaited<ReturnType<typeof runStage<unknown>>>;
    try {
      outcome = await runStage(deps, job, stageSpec(deps, { job, token, pipeline, step, data, stage, final, watch: next, branch }));
    } catch (error) {
      // Its fallback runs and stands in for it: the job completes, the run goes on.
      if (error instanceof FallbackTakenError) return;
      throw error;
    }
    const { output, inputs, request, recorded, ended } = outcome;
    if (parented || output === CONTINUE_STAGE) return;
    const standsFor = pipeline.fallbacks.get(step.name);
    if (standsFor !== undefined) return afterFallback(deps, { pipeline, step, data, failed: standsFor });
    if (!final) {
      const done = next.length > 0 && recorded ? await recorded : undefined;
      // What this stage read and gave, which the steps it adds may carry: only when this job's
      // completion is the one that recorded the stage (not one found done at its start or by its
      // completion, as a job taken over from a worker that died or lost its lock would be), so
      // that they are added carrying it once. A job added again carries nothing and finds its
      // stage done at its start.
      const known = done?.applied && output !== SKIP_STAGE && data.agent_turn === undefined && !data.branch ? { request, outputs: { [step.name]: output } } : undefined;
      await advanceRun({ store: deps.store, steps: deps.steps }, { pipeline, runId: data.run_id, batchId: data.batch_id, flow: data.flow, finished: step.name, recorded: done, known });
      // Its dependents are added; BullMQ has not yet been told the job completed.
      return crashPoint('step.advanced');
    }
    // Ended with the stage's completion, unless the stage was skipped or had finished before a crash.
    if (ended) return;
    const steps = contextOf(data, request, inputs).steps;
    if (output !== SKIP_STAGE) steps[step.name] = output;
    await finishRun({ store: deps.store }, { pipeline, runId: data.run_id, batchId: data.batch_id, known: { input: request, steps } });
  };
}
