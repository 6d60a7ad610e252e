/**
 * Waking a job that waits in the delayed set (a wait step, an approval): once its answer is
 * recorded, or its run has ended, so that it acts now rather than at its timeout.
 */
import type { RunWaits, WaitRecord } from '../store/run-waits.js';
import type { StepQueues } from './step-jobs.js';

/** Promotes the waiting job if it is delayed now; one that is not finds the answer when it looks. */
export async function wakeWaitingJob(steps: StepQueues, record: Pick<WaitRecord, 'job'>): Promise<void> {
  const job = await steps.queue(record.job.queue).getJob(record.job.id);
  if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
}

/** A run that ended (cancelled): its waits leave the inbox and their jobs wake to find it ended. */
export async function releaseWaits(deps: { waits: RunWaits; steps: StepQueues }, runId: string): Promise<number> {
  const records = await deps.waits.forgetRun(runId);
  await Promise.all(records.map((record) => wakeWaitingJob(deps.steps, record)));
  return records.length;
}
