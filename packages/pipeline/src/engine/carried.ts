/**
 * What a step's jobs carry of what their stage reads (StepJob.carried), so that a first attempt
 * starts without a round trip (services/workers/src/stage-runner.ts, carriedStart): a root step's
 * jobs the run's request, from the run's start; a step needing one step alone, that step's output,
 * from the completion that recorded it.
 */
import type { RunStatus } from '@switchyard/contracts';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { jsonBytesWithin } from '../store/limits.js';
import type { StepJob } from '../catalog.js';

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
 * by its first stage), needing one step alone, whose output is known, within the byte budget. A step
 * with two needs may be added by both (each sees the other done): the second add could come
 * once the first job has completed and gone, and only a start finds the stage done then.
 */
export function carriedOf(pipeline: CompiledPipeline, step: CompiledStep, status: RunStatus | null, known: KnownOutputs | undefined): ((count: number) => StepJob['carried']) | undefined {
  if (!known || status !== 'running' || !mayCarry(pipeline, step)) return undefined;
  const [need, ...more] = step.needs;
  if (need === undefined || more.length > 0 || !Object.hasOwn(known.outputs, need)) return undefined;
  return withinBudget({ request: known.request ?? null, inputs: { [need]: known.outputs[need] ?? null } });
}

/** Whether a step's jobs may carry at all: a tool or built-in step, not the run's last, not a fallback. */
function mayCarry(pipeline: CompiledPipeline, step: CompiledStep): boolean {
  return (step.target.kind === 'tool' || step.target.kind === 'uses') && step.name !== pipeline.finalStep && !pipeline.fallbacks.has(step.name);
}

/** `carried` for each of `count` jobs, unless their share of CARRIED_BYTES_MAX is too small for it. */
function withinBudget(carried: NonNullable<StepJob['carried']>): (count: number) => StepJob['carried'] {
  return (count) => (jsonBytesWithin(carried, Math.floor(CARRIED_BYTES_MAX / count)) === undefined ? undefined : carried);
}

/**
 * What a root step's jobs may carry when its run is started (StepJob.carried): the run's request,
 * on the same terms as carriedOf (a tool or built-in step, not the run's last, no fallback, within
 * the byte budget). Only the run's first add of its jobs may carry: one made again (a start
 * repeated, a dispatch taken over) may come after the first job has completed and gone.
 */
export function carriedAtStart(pipeline: CompiledPipeline, step: CompiledStep, request: unknown): ((count: number) => StepJob['carried']) | undefined {
  return step.needs.length === 0 && mayCarry(pipeline, step) ? withinBudget({ request: request ?? null, inputs: {} }) : undefined;
}
