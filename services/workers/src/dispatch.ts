/**
 * Expands a batch into runs: enqueues the first steps of each queued run, a chunk at a time,
 * recording how far it got so that a crashed dispatcher resumes there. Accepting a batch of
 * 10,000 thus costs the API one write, and the queues fill at Redis's pace.
 *
 * It keeps only so much of its key's work waiting ahead (`ahead`, in rounds of the key's fair
 * share, over every queue of the pipeline): past that it goes back to the delayed set (holding no
 * slot) and looks again after a jittered DISPATCH_RECHECK_MS. Jobs are given their places in a
 * queue when they are added, so a batch that put all its runs in at once would leave a second
 * batch of the same caller behind all of them; paced, two batches of one key add their chunks in
 * turn as the key's backlog drains, and share the key's part (other keys' shares are the fair
 * queueing's, as before). Chunks go to whichever of a key's dispatchers looks first, so the jitter
 * is what makes the turns even.
 */
import { DelayedError, type Job } from 'bullmq';
import { DispatchJob, rootJobs, type BatchStore, type CompiledPipeline, type FairShares, type FlowTag, type PipelineStore, type RunStore, type StepQueues } from '@switchyard/pipeline';

/** Runs enqueued per round, at most. */
const CHUNK = 250;

/** Default `ahead`: rounds of a key's share its batches keep waiting in a pipeline's queues. */
export const DEFAULT_DISPATCH_AHEAD = 1000;

/** How long a paced dispatcher waits before it looks again (ms), jittered ±50 % so that a key's batches take turns. */
export const DISPATCH_RECHECK_MS = 250;

export interface DispatchDeps {
  store: RunStore;
  batches: BatchStore;
  pipelines: PipelineStore;
  steps: StepQueues;
  /** Rounds of a key's share that may wait in a pipeline's queues before its batches wait to add more (default DEFAULT_DISPATCH_AHEAD). */
  ahead?: number | undefined;
}

/** Whether every key of the chunk already has `ahead` rounds waiting in the pipeline's queues (a chunk of several keys waits only when all are full). */
async function keysFull(fair: FairShares, pipeline: CompiledPipeline, flows: readonly (FlowTag | undefined)[], ahead: number): Promise<boolean> {
  const queues = [...new Set([...pipeline.steps.values()].map((step) => step.queue))];
  const keys = new Map<string, FlowTag>();
  for (const flow of flows) if (flow) keys.set(`${flow.priority}\n${flow.key}`, flow);
  if (keys.size === 0) return false;
  for (const flow of keys.values()) if ((await fair.backlog(queues, flow)) < ahead) return false;
  return true;
}

export function dispatchProcessor(deps: DispatchDeps) {
  const ahead = deps.ahead ?? DEFAULT_DISPATCH_AHEAD;
  const chunk = Math.min(CHUNK, Math.max(1, Math.ceil(ahead / 4)));
  return async (job: Job, token?: string): Promise<{ dispatched: number }> => {
    const { batch_id: batchId, pipeline: ref } = DispatchJob.parse(job.data);
    // The batch's runs exist already: they run on their version even if it was deleted since.
    const pipeline = ref?.version ? await deps.pipelines.pinned(ref.name, ref.version) : await deps.pipelines.compiled(ref?.name ?? 'story');
    if (!pipeline) throw new Error(`batch ${batchId}: pipeline ${ref?.name ?? 'story'} ${ref?.version ?? ''} is not registered`);
    let dispatched = 0;
    for (;;) {
      const { cursor, runIds } = await deps.batches.nextToDispatch(batchId, chunk);
      if (runIds.length === 0) break;
      const states = await deps.store.getStatesWithFlow(runIds);
      // A run cancelled before its turn needs no jobs.
      const queued = runIds.flatMap((runId, i) => (states[i]?.status === 'queued' ? [{ runId, flow: states[i]?.flow }] : []));
      if (
        token &&
        (await keysFull(
          deps.steps.fair,
          pipeline,
          queued.map((run) => run.flow),
          ahead,
        ))
      ) {
        await job.moveToDelayed(Date.now() + Math.round(DISPATCH_RECHECK_MS * (0.5 + Math.random())), token);
        throw new DelayedError();
      }
      await deps.steps.add((await Promise.all(queued.map(({ runId, flow }) => rootJobs(pipeline, runId, batchId, deps.store.limits, flow)))).flat());
      await deps.batches.markDispatched(batchId, cursor + runIds.length);
      dispatched += queued.length;
      await job.updateProgress(cursor + runIds.length);
    }
    return { dispatched };
  };
}
