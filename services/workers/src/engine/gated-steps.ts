/**
 * Concurrency keys in front of the step processor. A job of a run whose pipeline declares
 * `concurrency` passes its run's gate (member: the run) before anything else; a job of a step that
 * declares one passes the step's gate (member: the run's stage). A job not let through goes back
 * to the delayed set, holding no worker slot and spending no attempt, and is woken when its turn
 * comes (or looks again by itself after GATE_RECHECK_MS). The gate is released when the run (or
 * the stage) has ended, by the job that saw it end, and woken jobs first in line are promoted.
 * See packages/pipeline's flow/concurrency-gate.ts for why no crash loses a place or a slot.
 */
import { DelayedError, type Job } from 'bullmq';
import { LIVE_STATUSES, type RunStatus } from '@switchyard/contracts';
import { gateOf, GATE_RECHECK_MS, stageOf, type ConcurrencyGates, type GateJobRef, type GateTag, type PipelineStore, type RunStore, type StepJob, type StepQueues } from '@switchyard/pipeline';
import { KeyedPipeline } from '@switchyard/redis';
import type { QueueWaitMetrics } from '../queue-wait-metrics.js';

export interface GatedStepsDeps {
  store: RunStore;
  steps: StepQueues;
  pipelines: PipelineStore;
  gates: ConcurrencyGates;
  /** Times each job's wait before its work (default: not measured). */
  queueWaits?: QueueWaitMetrics | undefined;
}

const ENDED_STAGE = ['completed', 'skipped', 'failed', 'cancelled'];

/** A gate's member: a run (`<run id>`) or one stage of it (`<run id>|<stage>`). */
const memberOf = (runId: string, stage?: string) => (stage === undefined ? runId : `${runId}|${stage}`);

/** Whether each member's run is live, and its stage (for a stage's member) not ended. */
export async function membersLive(store: RunStore, members: readonly string[]): Promise<boolean[]> {
  const pipeline = new KeyedPipeline(store.redis);
  for (const member of members) {
    const [runId = '', stage] = member.split('|');
    pipeline.on(store.keys.run(runId)).hmget(store.keys.run(runId), 'status', stage === undefined ? 'status' : `${stage}.status`);
  }
  // A failed read must not pass for a member gone: its holder would be released while it runs.
  return (await pipeline.execOrThrow()).map((fields) => {
    const [status, stageStatus] = (fields as (string | null)[] | null) ?? [];
    return LIVE_STATUSES.includes(status as RunStatus) && !ENDED_STAGE.includes(stageStatus ?? '');
  });
}

/** Promotes the delayed jobs now first in line; one already moving on is left be. */
export async function wakeJobs(steps: StepQueues, jobs: readonly GateJobRef[]): Promise<void> {
  await Promise.all(
    jobs.map(async ({ queue, id }) => {
      try {
        await (await steps.queue(queue).getJob(id))?.promote();
      } catch {
        // Not delayed (started, or woken by its own recheck): nothing to wake.
      }
    }),
  );
}

interface Passage {
  gate: GateTag;
  member: string;
}

/** The gates a job must pass: its run's, and its step's (not a map's fan-out, which only adds branches). */
async function passagesOf(deps: GatedStepsDeps, data: StepJob): Promise<Passage[]> {
  const passages: Passage[] = [];
  if (data.flow?.gate) passages.push({ gate: data.flow.gate, member: memberOf(data.run_id) });
  const step = deps.pipelines.compiledNow(data.pipeline, data.version)?.steps.get(data.step) ?? (await deps.pipelines.pinned(data.pipeline, data.version).catch(() => null))?.steps.get(data.step);
  if (step?.concurrency && !(step.map && !data.branch)) {
    const request = await deps.store.redis.hget(deps.store.keys.run(data.run_id), 'request');
    const input: unknown = request ? JSON.parse(request) : null;
    const gate = await gateOf(step.concurrency, `step:${data.pipeline}.${data.step}`, { input, steps: {}, run_id: data.run_id });
    passages.push({ gate, member: memberOf(data.run_id, stageOf(data.step, data.branch?.key)) });
  }
  return passages;
}

/** Lets the job through its gates, or sends it back to wait its turn (DelayedError). */
async function pass(deps: GatedStepsDeps, job: Job, token: string | undefined, passages: readonly Passage[]): Promise<void> {
  for (const { gate, member } of passages) {
    const ask = () => deps.gates.acquire(gate, member, { job: { queue: job.queueName, id: job.id ?? '' } });
    let admission = await ask();
    if (!admission.admitted) {
      // Holders and runs ahead that ended without releasing (a crash, a cancel) give way.
      const woken = await deps.gates.sweep(gate, (members) => membersLive(deps.store, members));
      if (woken.length > 0) admission = await ask();
      await wakeJobs(deps.steps, woken.filter((ref) => ref.id !== job.id));
    }
    if (admission.admitted) continue;
    // A run that ended while it waited leaves the line; the processor then finds it ended.
    const [live] = await membersLive(deps.store, [member]);
    if (!live) {
      await wakeJobs(deps.steps, await deps.gates.release(gate, [member]));
      return;
    }
    if (!token) throw new Error('a gated job waits with a lock token');
    await job.moveToDelayed(Date.now() + GATE_RECHECK_MS, token);
    // A holder that ended between the ask and the move found this job not yet delayed to wake:
    // asked once more now that it is, it wakes itself when its turn has come meanwhile.
    if ((await ask()).admitted) await job.promote().catch(() => undefined);
    throw new DelayedError();
  }
}

/**
 * Whether a run's key may be let go while it waits: the run is `waiting` (for a person or a
 * signal) and every stage of it still going has a wait open (a parked stage shows as running).
 * Its next job, woken by the answer, takes the key again, in line like any other.
 */
async function idleWaiting(store: RunStore, runId: string): Promise<boolean> {
  if ((await store.getStatuses([runId]))[0] !== 'waiting') return false;
  const key = store.keys.run(runId);
  const open = JSON.parse((await store.redis.hget(key, 'waits_open')) ?? '[]') as string[];
  if (open.length === 0) return false;
  const records = await store.redis.hmget(key, ...open);
  const waiting = new Set(records.flatMap((record) => (record ? [(JSON.parse(record) as { stage?: string }).stage] : [])));
  const run = await store.getRun(runId);
  return run?.status === 'waiting' && run.stages.every((stage) => !['running', 'retrying'].includes(stage.status) || waiting.has(stage.name));
}

/**
 * Releases the gates whose member has ended, and a run's own key while the run waits with nothing
 * running (waiting for a person does not hold a place others of its key could use), and wakes the
 * jobs first in line.
 */
async function releaseEnded(deps: GatedStepsDeps, passages: readonly Passage[]): Promise<void> {
  const live = await membersLive(deps.store, passages.map((p) => p.member));
  const release = await Promise.all(passages.map(async (passage, i) => !live[i] || (!passage.member.includes('|') && (await idleWaiting(deps.store, passage.member)))));
  await Promise.all(passages.map(async (passage, i) => (release[i] ? wakeJobs(deps.steps, await deps.gates.release(passage.gate, [passage.member])) : undefined)));
}

/** The step processor behind concurrency keys: jobs of runs and steps without any go straight through. */
export function gatedSteps(deps: GatedStepsDeps, processor: (job: Job, token?: string) => Promise<void>) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = job.data as StepJob;
    // A malformed payload is the processor's to refuse.
    if (typeof data?.pipeline !== 'string' || typeof data.version !== 'number') return processor(job, token);
    // Only a definition that declares a key costs anything: a look at the compiled step.
    const declared = data.flow?.gate !== undefined || deps.pipelines.compiledNow(data.pipeline, data.version)?.steps.get(data.step)?.concurrency !== undefined || !deps.pipelines.compiledNow(data.pipeline, data.version);
    const passages = declared ? await passagesOf(deps, data) : [];
    if (passages.length === 0) {
      deps.queueWaits?.began(job);
      return processor(job, token);
    }
    await pass(deps, job, token, passages);
    deps.queueWaits?.began(job);
    try {
      await processor(job, token);
    } finally {
      await releaseEnded(deps, passages);
    }
  };
}
