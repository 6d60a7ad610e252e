/**
 * Expands a batch into runs: enqueues the first steps of each queued run, a chunk at a time,
 * recording how far it got so that a crashed dispatcher resumes there. Accepting a batch of
 * 10,000 thus costs the API one write, and the queues fill at Redis's pace.
 */
import type { Job } from 'bullmq';
import { crashPoint, DispatchJob, rootJobs, type BatchStore, type PipelineStore, type RunStore, type StepQueues } from '@switchyard/pipeline';

/** Runs enqueued per round. */
const CHUNK = 250;

export function dispatchProcessor(deps: { store: RunStore; batches: BatchStore; pipelines: PipelineStore; steps: StepQueues }) {
  return async (job: Job): Promise<{ dispatched: number }> => {
    const { batch_id: batchId, pipeline: ref } = DispatchJob.parse(job.data);
    // The batch's runs exist already: they run on their version even if it was deleted since.
    const pipeline = ref?.version ? await deps.pipelines.pinned(ref.name, ref.version) : await deps.pipelines.compiled(ref?.name ?? 'story');
    if (!pipeline) throw new Error(`batch ${batchId}: pipeline ${ref?.name ?? 'story'} ${ref?.version ?? ''} is not registered`);
    let dispatched = 0;
    for (;;) {
      const { cursor, runIds } = await deps.batches.nextToDispatch(batchId, CHUNK);
      if (runIds.length === 0) break;
      const states = await deps.store.getStatesWithFlow(runIds);
      // A run cancelled before its turn needs no jobs.
      const queued = runIds.flatMap((runId, i) => (states[i]?.status === 'queued' ? [{ runId, flow: states[i]?.flow }] : []));
      await deps.steps.add((await Promise.all(queued.map(({ runId, flow }) => rootJobs(pipeline, runId, batchId, deps.store.limits, flow)))).flat());
      crashPoint('batch.page-queued');
      await deps.batches.markDispatched(batchId, cursor + runIds.length);
      dispatched += queued.length;
      await job.updateProgress(cursor + runIds.length);
    }
    return { dispatched };
  };
}
