/**
 * What happens after a step ends: every step that needs it and now has all it needs is enqueued,
 * and when every stage of the run is done the run ends with its output. Each worker checks after
 * its own completion has been written, so when two steps finish at once at least one of them
 * sees both done; both may enqueue the next step, which job ids make one job.
 */
import { LIVE_STATUSES, type RunError, type RunStatus } from '@switchyard/contracts';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { ExpressionError } from '../definition/expressions.js';
import { DEFAULT_RUN_LIMITS, jsonBytesWithin, RUN_LIMIT_VARIABLES, type RunLimits } from '../store/limits.js';
import type { RunStore } from '../store/run-store.js';
import { readStepOutputs, readStepStates, type RecordedStage } from '../store/step-states.js';
import { jobsForStep } from './pipeline-runs.js';
import type { StepQueues } from './step-jobs.js';
import type { FlowTag, StepJob } from '../catalog.js';

export interface AdvanceDeps {
  store: RunStore;
  steps: StepQueues;
}

type StepState = { status: string | null; branches: { name: string; status: string | null }[] | null };

/** A step is done when completed or skipped; a map step when every branch has completed. */
export function stepDone(state: StepState | undefined): boolean {
  if (!state) return false;
  if (state.branches) return state.branches.every((b) => b.status === 'completed');
  return state.status === 'completed' || state.status === 'skipped';
}

const ENDED: readonly (RunStatus | null)[] = ['completed', 'failed', 'cancelled', null];

const needsAfterByPipeline = new WeakMap<CompiledPipeline, Map<string, readonly string[]>>();

/** The steps whose states decide what follows `finished`: the needs of its dependents (worked out once per version). */
export function needsAfter(pipeline: CompiledPipeline, finished: string): readonly string[] {
  let known = needsAfterByPipeline.get(pipeline);
  if (!known) needsAfterByPipeline.set(pipeline, (known = new Map()));
  let needs = known.get(finished);
  if (!needs) {
    const dependents = pipeline.steps.get(finished)?.dependents ?? [];
    known.set(finished, (needs = [...new Set(dependents.flatMap((name) => pipeline.steps.get(name)?.needs ?? []))]));
  }
  return needs;
}

/**
 * Most bytes (as JSON) that a step's jobs added by advanceRun carry of what they read, over all
 * of them (a map's branches share it): beyond it each reads its inputs at its start, as before.
 */
export const CARRIED_BYTES_MAX = 64 * 1024;

/** What the worker that finished a step holds of its run: the request and outputs, as a start reads them. */
export interface KnownOutputs {
  request: unknown;
  /** Step outputs by step name, as a start reads them (a map step's as the list of its branches'). */
  outputs: Record<string, unknown>;
}

/**
 * What a ready step's jobs may carry (StepJob.carried), or nothing: only a tool or built-in step
 * (an agent, a wait or a child pipeline keeps its start, which their later jobs build on) that is
 * not the run's last (whose start reads every output), of a running run (a queued one is moved
 * by a start), needing one step alone, whose output is known, within the byte budget. A step
 * with two needs may be added by both (each sees the other done): the second add could come
 * once the first job has completed and gone, and only a start finds the stage done then.
 */
export function carriedOf(pipeline: CompiledPipeline, step: CompiledStep, status: RunStatus | null, known: KnownOutputs | undefined): ((count: number) => StepJob['carried']) | undefined {
  if (!known || status !== 'running' || step.name === pipeline.finalStep || pipeline.fallbacks.has(step.name)) return undefined;
  if (step.target.kind !== 'tool' && step.target.kind !== 'uses') return undefined;
  const [need, ...more] = step.needs;
  if (need === undefined || more.length > 0 || !Object.hasOwn(known.outputs, need)) return undefined;
  return (count) => {
    const carried = { request: known.request ?? null, inputs: { [need]: known.outputs[need] ?? null } };
    return jsonBytesWithin(carried, Math.floor(CARRIED_BYTES_MAX / count)) === undefined ? undefined : carried;
  };
}

/**
 * @param options.recorded the finished stage's completion, when it watched
 *   `stepStateFields(needsAfter(pipeline, finished))`: its answer saves a read
 * @param options.known the run's request and the finished stage's output: the steps it adds that
 *   need it alone carry them (StepJob.carried)
 */
export async function advanceRun(deps: AdvanceDeps, options: { pipeline: CompiledPipeline; runId: string; batchId?: string | undefined; flow?: FlowTag | undefined; finished: string; recorded?: RecordedStage | undefined; known?: KnownOutputs | undefined }): Promise<void> {
  const { pipeline, runId } = options;
  const dependents = pipeline.steps.get(options.finished)?.dependents ?? [];
  const state = await readStepStates(deps.store, runId, needsAfter(pipeline, options.finished), options.recorded);
  if (ENDED.includes(state.run.status)) return;
  const ready = dependents.filter((name) => (pipeline.steps.get(name)?.needs ?? []).every((need) => stepDone(state.steps.get(need))));
  if (ready.length > 0) {
    const jobs = await Promise.all(
      ready.map((name) => {
        const step = pipeline.steps.get(name) as CompiledStep;
        return jobsForStep({ pipeline, step, runId, batchId: options.batchId, flow: options.flow, limits: deps.store.limits, carried: carriedOf(pipeline, step, state.run.status, options.known) });
      }),
    );
    await deps.steps.add(jobs.flat());
  }
  if (state.run.total > 0 && state.run.completed >= state.run.total) await finishRun(deps, { pipeline, runId, batchId: options.batchId });
}

/**
 * Ends a run whose stages are all done, with its output (or failed, when the output expression
 * fails). `known` gives the input and outputs when the caller has them (the final step), saving
 * their reads.
 */
export async function finishRun(deps: Pick<AdvanceDeps, 'store'>, options: { pipeline: CompiledPipeline; runId: string; batchId?: string | undefined; known?: { input: unknown; steps: Record<string, unknown> } }): Promise<void> {
  const { pipeline, runId, store } = { ...options, store: deps.store };
  const read = async () => {
    const [outputs, requestJson] = await Promise.all([readStepOutputs(store, runId, Object.keys(pipeline.stored.definition.steps)), store.redis.hget(store.keys.run(runId), 'request')]);
    return { steps: outputs, input: requestJson ? (JSON.parse(requestJson) as unknown) : null };
  };
  const end = await runEndOf({ pipeline, runId, limits: store.limits, ...(options.known ?? (await read())) });
  await store.transition({ runId, from: LIVE_STATUSES, batchId: options.batchId ?? null, ...end });
}

/**
 * How a run whose steps are all done ends: completed with its output, or failed when the output
 * expression fails (`output_failed`) or gives more than `limits.resultBytes` (`result_too_large`).
 */
export async function runEndOf(options: { pipeline: CompiledPipeline; runId: string; input: unknown; steps: Record<string, unknown>; limits?: RunLimits | undefined }): Promise<{ to: 'completed'; result: unknown } | { to: 'failed'; error: RunError }> {
  const { pipeline, input, steps, runId } = options;
  let result: unknown;
  try {
    result = (pipeline.output ? await pipeline.output.evaluate({ input, steps, run_id: runId }) : steps) ?? null;
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    const code = error.code === 'expression_budget_exceeded' ? error.code : 'output_failed';
    return { to: 'failed', error: { code, message: `The run's output could not be computed: ${error.message}`, retryable: false } };
  }
  const max = (options.limits ?? DEFAULT_RUN_LIMITS).resultBytes;
  if (jsonBytesWithin(result, max) === undefined) {
    return { to: 'failed', error: { code: 'result_too_large', message: `The run's output is larger than ${max} bytes as JSON, the most a run's result may be`, retryable: false, details: { limit_bytes: max, variable: RUN_LIMIT_VARIABLES.resultBytes } } };
  }
  return { to: 'completed', result };
}
