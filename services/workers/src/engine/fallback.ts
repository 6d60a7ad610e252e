/**
 * `on_error` fallbacks at run time. A step that fails for good (after its retries) and names a
 * fallback does not fail its run: its stage is recorded `failed`, the fallback becomes a stage and
 * its job is enqueued, and the failed step's job completes (a failed job would end the run). The
 * fallback runs as any step, reading the failure as `error` ({code, message, step}); when it ends,
 * its output stands for the failed step's and the run goes on from the failed step.
 */
import type { RunError } from '@switchyard/contracts';
import { advanceRun, crashPoint, standIn, stepJob, takeFallback, type CompiledPipeline, type CompiledStep, type StepJob, type StepQueues } from '@switchyard/pipeline';
import type { StageDeps } from '../stage-runner.js';

export interface FallbackDeps extends Pick<StageDeps, 'store' | 'logger'> {
  steps: StepQueues;
}

/**
 * What a failing step's stage gives up into: its fallback taken (true), or nothing (false: the
 * run fails as it would without one). Undefined for a step with no `on_error`.
 */
export function fallbackOf(deps: FallbackDeps, options: { pipeline: CompiledPipeline; step: CompiledStep; data: StepJob }): ((error: RunError) => Promise<boolean>) | undefined {
  const { pipeline, step, data } = options;
  const name = step.definition.on_error;
  const fallback = name === undefined || data.branch ? undefined : pipeline.steps.get(name);
  if (!fallback) return undefined;
  return async (error) => {
    const runId = data.run_id;
    if (!(await takeFallback(deps.store, { runId, failed: step.name, fallback: fallback.name, error }))) return false;
    crashPoint('fallback.taken');
    deps.logger.warn({ run_id: runId, stage: step.name, err: error, fallback: fallback.name }, 'stage failed; its fallback runs');
    const job = stepJob({ pipeline, step: fallback, runId, batchId: data.batch_id, flow: data.flow });
    job.data.fallback_for = { step: step.name, code: error.code.slice(0, 200), message: error.message.slice(0, 2000) };
    await deps.steps.add([job]);
    return true;
  };
}

/** The failure a fallback's expressions read as `error`. */
export function fallbackError(data: StepJob): { code: string; message: string; step: string } | undefined {
  const failure = data.fallback_for;
  return failure ? { code: failure.code, message: failure.message, step: failure.step } : undefined;
}

/** After fallback `step` has ended: its output stands for the failed step's, and the run goes on from there. */
export async function afterFallback(deps: FallbackDeps, options: { pipeline: CompiledPipeline; step: CompiledStep; data: StepJob; failed: string }): Promise<void> {
  const { pipeline, data, failed } = options;
  await standIn(deps.store, { runId: data.run_id, failed, fallback: options.step.name });
  crashPoint('fallback.stood-in');
  await advanceRun({ store: deps.store, steps: deps.steps }, { pipeline, runId: data.run_id, batchId: data.batch_id, flow: data.flow, finished: failed });
}
