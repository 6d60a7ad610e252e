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
import { carriedOf, type KnownOutputs } from './carried.js';
import type { RunStore } from '../store/run-store.js';
import { readStepOutputs, readStepStates, type RecordedStage } from '../store/step-states.js';
import { jobsForStep } from './pipeline-runs.js';
import type { StepQueues } from './step-jobs.js';
import type { FlowTag } from '../catalog.js';

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
