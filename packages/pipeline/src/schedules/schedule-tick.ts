/**
 * One tick of a schedule, as a worker processes it: the schedule's run for that tick, under a run
 * id made from the schedule's name and the tick's time, so that a tick processed twice (a worker
 * died holding it, and BullMQ handed it on) starts one run, never two.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_CATCH_UP_MAX, type RunStatus } from '@switchyard/contracts';
import type { Job } from 'bullmq';
import { ScheduleTickJob } from '../catalog.js';
import { InputError, rootJobs, startPipelineRun, type PipelineRunsDeps } from '../engine/pipeline-runs.js';
import { addFirstJobsAgain } from '../engine/first-jobs-again.js';
import { PRIORITY_BATCH } from '../catalog.js';
import { RunLimitError } from '../store/limits.js';
import { TooManyRunsError } from '../store/live-runs.js';
import type { PipelineStore } from '../store/pipeline-store.js';
import type { CompiledPipeline } from '../definition/compile.js';
import { ticksDue } from './schedule-spec.js';
import type { ScheduleStore, StoredSchedule } from './schedule-store.js';
import { crashPoint } from '../crash-points.js';

/** The run's field its tick's processor claims it by (ms), before the run is written. */
const CLAIM_FIELD = 'tick_claimed_at';
/**
 * HSETNX of the claim, with a TTL in the same script: a tick claimed and then never written (its
 * processor died, and the tick taken again late was skipped by its catch_up) leaves nothing for
 * good. The run's creation sets its own TTL over it, dropped once it is listed (createRuns).
 */
const CLAIM_SCRIPT = `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;
/**
 * A claim older than this whose run was never written was left by a processor that died between
 * the two (BullMQ hands a job on only once its lock has lapsed): the next processor writes it.
 */
const CLAIM_LAPSE_MS = 10_000;

/**
 * The status of a run another processor claimed, once it has written it; null when its claim
 * lapsed with nothing written (that processor died), so this one is to write it.
 */
async function statusOnceWritten(deps: Pick<ScheduleTickDeps, 'store'>, runId: string): Promise<RunStatus | null> {
  const runKey = deps.store.keys.run(runId);
  for (;;) {
    const [status, at] = await deps.store.redis.hmget(runKey, 'status', CLAIM_FIELD);
    if (status) return status as RunStatus;
    if (!at || Date.now() - Number(at) > CLAIM_LAPSE_MS) return null;
    await sleep(50);
  }
}

/** The run id of a schedule's tick: the same for the same tick, in the run ids' own form. */
export function tickRunId(prefix: string, schedule: string, tickMs: number): string {
  return `run_${createHash('sha256').update(`${prefix}\u0000schedule\u0000${schedule}\u0000${tickMs}`).digest('hex').slice(0, 32)}`;
}

/** When the tick was due: BullMQ names a scheduler's job `repeat:<scheduler>:<ms>` and keeps the ms as `prevMillis`. */
export function tickTimeOf(job: Pick<Job, 'id' | 'opts' | 'timestamp'>): number {
  const fromId = Number(job.id?.split(':').at(-1));
  if (Number.isSafeInteger(fromId) && fromId > 0) return fromId;
  return job.opts.prevMillis ?? job.timestamp;
}

export type TickOutcome =
  | { outcome: 'started' | 'existed'; run_id: string; /** With catch_up all, the runs of the missed ticks started too, oldest first. */ caught_up?: string[] }
  | { outcome: 'skipped'; reason: 'no_schedule' | 'paused' | 'pipeline_gone' | 'invalid_input' | 'missed' | 'too_many_runs' };

export interface ScheduleTickDeps extends Pick<PipelineRunsDeps, 'store' | 'queues'> {
  pipelines: PipelineStore;
  schedules: ScheduleStore;
}

/**
 * Starts the tick's run, once. A schedule gone or paused since the tick was queued starts none
 * (and a scheduler left without its schedule is removed). The run is claimed first (HSETNX of a
 * field of its hash), so two processors of one tick cannot both write it; the one that finds it
 * claimed adds the run's first jobs again while it is queued (job ids make that a no-op when they
 * exist), or writes it when the claim lapsed with no run written.
 */
export async function processScheduleTick(deps: ScheduleTickDeps, job: Pick<Job, 'id' | 'opts' | 'timestamp' | 'data'> & Partial<Pick<Job, 'stalledCounter' | 'attemptsMade'>>): Promise<TickOutcome> {
  const { schedule: name } = ScheduleTickJob.parse(job.data);
  const schedule = await deps.schedules.get(name);
  if (!schedule) {
    await deps.schedules.queue.removeJobScheduler(name);
    return { outcome: 'skipped', reason: 'no_schedule' };
  }
  if (schedule.paused) return { outcome: 'skipped', reason: 'paused' };
  const pipeline = await deps.pipelines.compiled(schedule.pipeline, schedule.version ?? undefined);
  if (!pipeline) return { outcome: 'skipped', reason: 'pipeline_gone' };
  // Only the ticks BullMQ will never make are caught up: those before the next one its scheduler
  // has made. Judged by the clock alone, a tick taken late (a busy or killed worker) would run a tick
  // BullMQ has already queued, in its own place, and leave its own tick without a run.
  // With no scheduler (removed, or past its end) BullMQ makes no later tick, and none is owed:
  // the tick runs alone, or a tick taken late would start runs for times no scheduler had.
  const next = (await deps.schedules.queue.getJobScheduler(name))?.next;
  const own = tickTimeOf(job);
  const ticks = ticksToRun(schedule, own, next === undefined ? own : Math.min(Date.now(), next - 1));
  // Taken again after its processor died (or failed), a tick is late because of that death, not an
  // outage: BullMQ made the ticks since, so its own run is owed whatever `catch_up` says of a late
  // tick (the later ticks' runs exist, and starting them again is a no-op). A tick whose processor
  // claimed (or wrote) its run before dying finishes it, or it would be left queued with no job.
  const retaken = (job.stalledCounter ?? 0) > 0 || (job.attemptsMade ?? 0) > 0;
  if (!ticks.includes(own) && (retaken || (await deps.store.redis.exists(deps.store.keys.run(tickRunId(deps.store.prefix, name, own)))) === 1)) ticks.unshift(own);
  if (ticks.length === 0) return { outcome: 'skipped', reason: 'missed' };
  let last: TickOutcome = { outcome: 'skipped', reason: 'missed' };
  const started: string[] = [];
  for (const tickMs of ticks) {
    last = await startTick(deps, { name, input: schedule.input, priority: schedule.priority, pipeline, tickMs });
    if (last.outcome === 'skipped') return last;
    crashPoint('tick.started');
    started.push(last.run_id);
    await deps.schedules.recordTick(name, { run_id: last.run_id, at: new Date(tickMs).toISOString() });
  }
  return started.length > 1 && last.outcome !== 'skipped' ? { ...last, caught_up: started.slice(0, -1) } : last;
}

/**
 * The ticks a tick taken at `now` runs, by the schedule's `catch_up`. On time (no later tick due
 * yet), its own. Late, after an outage of every worker (BullMQ keeps one delayed tick and schedules
 * the next from now, so the ones between are never taken): `none` runs nothing, `latest` the
 * latest tick due, `all` this one and every later one due, the latest `catch_up_max` of them. Run
 * ids come from tick times, so a tick also taken on its own starts no second run.
 */
export function ticksToRun(schedule: Pick<StoredSchedule, 'cron' | 'timezone' | 'every_ms' | 'catch_up' | 'catch_up_max'>, tickMs: number, now: number): number[] {
  const max = schedule.catch_up === 'all' ? (schedule.catch_up_max ?? DEFAULT_CATCH_UP_MAX) : 1;
  const due = ticksDue(schedule, tickMs, now, max);
  if (due.length === 0) return [tickMs];
  if (schedule.catch_up === 'none') return [];
  if (schedule.catch_up === 'latest') return due.slice(-1);
  return [tickMs, ...due].slice(-max);
}

/** Starts one tick's run, once (see processScheduleTick). */
async function startTick(deps: ScheduleTickDeps, tick: { name: string; input: Record<string, unknown>; priority: number | null; pipeline: CompiledPipeline; tickMs: number }): Promise<TickOutcome> {
  const { name, pipeline, tickMs } = tick;
  const runId = tickRunId(deps.store.prefix, name, tickMs);
  const runKey = deps.store.keys.run(runId);
  const claimed = (await deps.store.redis.eval(CLAIM_SCRIPT, 1, runKey, CLAIM_FIELD, String(Date.now()), Math.max(deps.store.retentionSeconds, 3600))) === 1;
  if (claimed) crashPoint('tick.claimed');
  const status = claimed ? null : await statusOnceWritten(deps, runId);
  if (status === null) {
    try {
      // Its runs are held by the schedule (`schedule:<name>`, as their fair-share key) under the
      // bound of live runs per key: a schedule whose runs never end stops at that bound.
      const key = `schedule:${name}`;
      await startPipelineRun(deps, { pipeline, input: tick.input, runId, owner: key, caller: { key, priority: tick.priority ?? undefined }, defaultPriority: PRIORITY_BATCH });
    } catch (error) {
      // The latest version's input schema no longer takes the schedule's input, or the schedule
      // holds as many live runs as a key may: no retry mends either now; a later tick tries again.
      const tooMany = error instanceof TooManyRunsError;
      if (!(error instanceof InputError) && !(error instanceof RunLimitError) && !tooMany) throw error;
      await deps.store.redis.del(runKey);
      return { outcome: 'skipped', reason: tooMany ? 'too_many_runs' : 'invalid_input' };
    }
  } else {
    // The processor before may have died between the run's hash and its index entries.
    await deps.store.ensureIndexed(runId);
    if (status === 'queued') await addFirstJobsAgain({ steps: deps.queues.steps, store: deps.store }, [{ runId, jobs: await rootJobs(pipeline, runId, undefined, deps.store.limits, await deps.store.getFlow(runId)) }]);
  }
  return { outcome: status === null ? 'started' : 'existed', run_id: runId };
}
