/**
 * A queued run's first jobs added again, by a start finished after its first holder died (a
 * request repeated under its Idempotency-Key, a schedule's tick or a batch's dispatch taken over).
 *
 * `queued` alone does not say that the first jobs were never added: a first stage whose job
 * carries its inputs (StepJob.carried) leaves its run queued while it works, and its completion
 * moves the run to running only then. Added again once that job has completed and gone, the
 * jobs would be new ones: the stage's parent released a second time, a child finishing after its
 * parent was removed. So the jobs are looked for first, and the run's status read after: the
 * completion that moves a run is written before BullMQ removes its job, so a job not found with
 * the run still queued is a job never added.
 */
import type { RunStore } from '../store/run-store.js';
import type { StepJobSpec, StepQueues } from './step-jobs.js';

/** The jobs of `specs` that BullMQ runs first: the leaves of its flows. */
function leaves(specs: readonly StepJobSpec[]): StepJobSpec[] {
  return specs.flatMap((spec) => (spec.children ? leaves(spec.children) : [spec]));
}

/**
 * Adds each run's `jobs` unless one of their first jobs exists or the run is no longer queued;
 * answers the runs whose jobs were added.
 */
export async function addFirstJobsAgain(deps: { steps: StepQueues; store: RunStore }, runs: readonly { runId: string; jobs: readonly StepJobSpec[] }[]): Promise<string[]> {
  const found = await Promise.all(runs.map((run) => deps.steps.anyExists(leaves(run.jobs))));
  const missing = runs.filter((_, i) => !found[i]);
  const statuses = await deps.store.getStatuses(missing.map((run) => run.runId));
  const owed = missing.filter((_, i) => statuses[i] === 'queued');
  if (owed.length > 0) await deps.steps.add(owed.flatMap((run) => run.jobs));
  return owed.map((run) => run.runId);
}
