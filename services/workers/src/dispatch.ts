/**
 * Expands a batch into runs: enqueues the first flow of each queued run, a chunk at a time,
 * recording how far it got so that a crashed dispatcher resumes there. Accepting a batch of
 * 10,000 thus costs the API one write, and the queues fill at Redis's pace.
 */
import type { FlowProducer, Job } from 'bullmq';
import { StoryRequest } from '@switchyard/contracts';
import { DispatchJob, enqueueStories, type BatchStore, type RunStore } from '@switchyard/pipeline';

/** Runs enqueued per transaction. */
const CHUNK = 250;

export function dispatchProcessor(deps: { store: RunStore; batches: BatchStore; flows: FlowProducer }) {
  return async (job: Job): Promise<{ dispatched: number }> => {
    const { batch_id: batchId } = DispatchJob.parse(job.data);
    let dispatched = 0;
    for (;;) {
      const { cursor, runIds } = await deps.batches.nextToDispatch(batchId, CHUNK);
      if (runIds.length === 0) break;
      const found = await deps.store.getStatusesAndRequests(runIds);
      const runs = runIds.flatMap((runId, i) => {
        const request = StoryRequest.safeParse(found[i]?.request);
        // A run cancelled before its turn needs no jobs.
        return found[i]?.status === 'queued' && request.success ? [{ runId, request: request.data, batchId }] : [];
      });
      await enqueueStories(deps.flows, runs);
      await deps.batches.markDispatched(batchId, cursor + runIds.length);
      dispatched += runs.length;
      await job.updateProgress(cursor + runIds.length);
    }
    return { dispatched };
  };
}
