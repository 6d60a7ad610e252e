/**
 * A child pipeline step (`pipeline: name`): the step's `args` are the input of a child run of that
 * pipeline, and the child's result is the step's output. The child's id is derived from the run
 * and the stage, and the step's job waits for it in the delayed set (child-runs.ts). A child that
 * fails fails the step with `child_run_failed`, the child's error in its details, so that the
 * step's `on_error` fallback (or the run's failure) follows as for any failure.
 */
import type { Job } from 'bullmq';
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import { childRunField, type CompiledStep, type ExpressionContext, type StepJob } from '@switchyard/pipeline';
import { StageFailedError } from '../stage-runner.js';
import { awaitChildRun, cancelChildRun, ChildRunFailedError, childRunId, type ChildRunDeps } from './child-runs.js';
import { asStepFailure } from './step-work.js';

type PipelineTarget = Extract<CompiledStep['target'], { kind: 'pipeline' }>;

export interface ChildStepOptions {
  job: Job;
  token: string | undefined;
  step: CompiledStep & { target: PipelineTarget };
  data: StepJob;
  stage: string;
  context: ExpressionContext;
  /** Says the stage is running (before the job first waits). */
  announce(): void;
}

export function isChildStep(step: CompiledStep): step is CompiledStep & { target: PipelineTarget } {
  return step.target.kind === 'pipeline';
}

export async function runChildStep(deps: ChildRunDeps, options: ChildStepOptions): Promise<unknown> {
  const { data, stage, step } = options;
  const evaluate = async () => {
    try {
      const value = step.args.evaluate(options.context);
      return value instanceof Promise ? await value : value;
    } catch (error) {
      throw asStepFailure(error);
    }
  };
  try {
    const { result } = await awaitChildRun(deps, {
      job: options.job,
      token: options.token,
      data,
      parent: { runId: data.run_id, stage },
      childId: childRunId(data.run_id, stage),
      linkField: childRunField(stage),
      pipeline: { name: step.target.pipeline, version: step.target.version },
      input: evaluate,
      onWait: options.announce,
    });
    return result;
  } catch (error) {
    if (error instanceof ChildRunFailedError) throw new StageFailedError({ code: error.code, message: error.message, details: error.details });
    throw error;
  }
}

/**
 * A child step's job that finds its run ended (cancelled, or failed by a sibling) ends its child
 * too: the run's cancellation did so at once, a failure did not.
 */
export async function endChildOfEndedRun(deps: Pick<ChildRunDeps, 'store'> & { steps: ChildRunDeps['queues']['steps'] }, data: StepJob, stage: string): Promise<void> {
  if (data.child_wait_since === undefined) return;
  const status = await deps.store.getStatus(data.run_id);
  if (status && !TERMINAL_STATUSES.includes(status)) return;
  await cancelChildRun({ store: deps.store, queues: { steps: deps.steps } }, childRunId(data.run_id, stage));
}
