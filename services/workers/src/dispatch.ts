/**
 * Expands a batch into runs: enqueues the first steps of each queued run, a chunk at a time,
 * recording how far it got so that a crashed dispatcher resumes there. Accepting a batch of
 * 10,000 thus costs the API one write, and the queues fill at Redis's pace.
 *
 * Before each chunk it asks its key's turns (packages/pipeline's flow/batch-turns.ts): it adds
 * the chunk only while its key has fewer than `ahead` rounds of its fair share waiting in the
 * pipeline's queues and no other batch of the key is behind it in runs added. Otherwise it goes
 * back to the delayed set (holding no slot) and asks again after a jittered DISPATCH_RECHECK_MS.
 * So two batches of one caller add their chunks in turn as the key's backlog drains, and share the
 * key's part (other keys' shares are the fair queueing's, as before).
 */
import { DelayedError, type Job } from 'bullmq';
import { addFirstJobsAgain, crashPoint, DispatchJob, rootJobs, type BatchStore, type BatchTurns, type CompiledPipeline, type FlowTag, type PipelineStore, type RunStore, type StepQueues } from '@switchyard/pipeline';

/** Runs enqueued per round, at most (DISPATCH_AHEAD / 8 when that is less). */
const CHUNK = 250;

/** Default `ahead`: rounds of a key's share its batches keep waiting in a pipeline's queues. */
export const DEFAULT_DISPATCH_AHEAD = 1000;

/** How long a dispatcher told to wait looks again after (ms), jittered ±50 %. */
export const DISPATCH_RECHECK_MS = 250;

export interface DispatchDeps {
  store: RunStore;
  batches: BatchStore;
  pipelines: PipelineStore;
  steps: StepQueues;
  /** Its key's turns between batches (none: every chunk added at once, as before flow control). */
  turns?: BatchTurns | undefined;
  /** Rounds of a key's share that may wait in a pipeline's queues before its batches wait to add more (default DEFAULT_DISPATCH_AHEAD). */
  ahead?: number | undefined;
}

/** The distinct keys (class and key) of a chunk's runs. */
function keysOf(flows: readonly (FlowTag | undefined)[]): FlowTag[] {
  const keys = new Map<string, FlowTag>();
  for (const flow of flows) if (flow) keys.set(`${flow.priority}\n${flow.key}`, flow);
  return [...keys.values()];
}

/** Whether the chunk may be added now: one of its keys (a batch's runs mostly have one) has room and its turn. */
async function mayAdd(turns: BatchTurns, pipeline: CompiledPipeline, batch: string, flows: readonly (FlowTag | undefined)[], ahead: number, chunk: number): Promise<boolean> {
  const keys = keysOf(flows);
  if (keys.length === 0) return true;
  const queues = [...new Set([...pipeline.steps.values()].map((step) => step.queue))];
  let go = false;
  for (const flow of keys) if ((await turns.ask({ queues, flow, batch, ahead, chunk })) === 'go') go = true;
  return go;
}

export function dispatchProcessor(deps: DispatchDeps) {
  const ahead = deps.ahead ?? DEFAULT_DISPATCH_AHEAD;
  // Chunks of an eighth of the window: a key's batches take turns finely enough to share it.
  const chunk = Math.min(CHUNK, Math.max(1, Math.ceil(ahead / 8)));
  return async (job: Job, token?: string): Promise<{ dispatched: number }> => {
    const { batch_id: batchId, pipeline: ref } = DispatchJob.parse(job.data);
    // The batch's runs exist already: they run on their version even if it was deleted since.
    const pipeline = ref?.version ? await deps.pipelines.pinned(ref.name, ref.version) : await deps.pipelines.compiled(ref?.name ?? 'story');
    if (!pipeline) throw new Error(`batch ${batchId}: pipeline ${ref?.name ?? 'story'} ${ref?.version ?? ''} is not registered`);
    let dispatched = 0;
    let lastKeys: FlowTag[] = [];
    // The runs' first jobs carry their requests (rootJobs) only from a dispatch job never taken
    // over: one taken over adds again the page its first holder may have added already, whose
    // jobs may have completed and gone. (Parking in the delayed set to wait a turn is no take-over.)
    const firstHandOut = job.attemptsMade === 0 && job.stalledCounter === 0;
    for (;;) {
      const { cursor, runIds } = await deps.batches.nextToDispatch(batchId, chunk);
      if (runIds.length === 0) break;
      const states = await deps.store.getStatesWithFlow(runIds, { withRequest: firstHandOut });
      // A run cancelled before its turn needs no jobs.
      const queued = runIds.flatMap((runId, i) => (states[i]?.status === 'queued' ? [{ runId, flow: states[i]?.flow, request: states[i]?.request }] : []));
      const flows = queued.map((run) => run.flow);
      if (deps.turns && token && !(await mayAdd(deps.turns, pipeline, batchId, flows, ahead, chunk))) {
        await job.moveToDelayed(Date.now() + Math.round(DISPATCH_RECHECK_MS * (0.5 + Math.random())), token);
        throw new DelayedError();
      }
      lastKeys = keysOf(flows);
      const jobs = await Promise.all(queued.map(async ({ runId, flow, request }) => ({ runId, jobs: await rootJobs(pipeline, runId, batchId, deps.store.limits, flow, request && { request: request.value }) })));
      if (firstHandOut) await deps.steps.add(jobs.flatMap((run) => run.jobs));
      else await addFirstJobsAgain({ steps: deps.steps, store: deps.store }, jobs);
      crashPoint('batch.page-queued');
      await deps.batches.markDispatched(batchId, cursor + runIds.length);
      dispatched += queued.length;
      await job.updateProgress(cursor + runIds.length);
    }
    // Nothing left to add: its key's other batches no longer wait for its turns.
    const turns = deps.turns;
    if (turns) await Promise.all(lastKeys.map((flow) => turns.done(flow, batchId)));
    return { dispatched };
  };
}
