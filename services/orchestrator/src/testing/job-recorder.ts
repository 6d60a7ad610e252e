/**
 * The jobs an in-process stack's workers take up, as they take them: a completed step job is
 * removed at once, so what a test checks on a job (its options, its data) is read on the way.
 */
import type { Job } from 'bullmq';
import type { TestStack } from './stack.js';

export interface JobRecorder {
  /** The job with this id as a worker last took it up (undefined if none did). */
  taken(jobId: string): Job | undefined;
  stop(): void;
}

export function recordJobs(stack: TestStack): JobRecorder {
  const taken = new Map<string, Job>();
  const record = (job: Job) => {
    if (job.id) taken.set(job.id, job);
  };
  const workers = stack.workers?.workers ?? [];
  if (workers.length === 0) throw new Error('recordJobs needs a stack whose workers run in this process');
  for (const worker of workers) worker.on('active', record);
  return {
    taken: (jobId) => taken.get(jobId),
    stop: () => {
      for (const worker of workers) worker.off('active', record);
    },
  };
}
