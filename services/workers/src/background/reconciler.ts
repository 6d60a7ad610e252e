/**
 * Ends the runs that nothing will end: a run whose jobs were failed by BullMQ itself (a job that
 * stalled past its limit, a parent failed with a child), removed, or lost while a worker died
 * inside its failure handling, would otherwise stay `running` forever, with no `done` event,
 * and its batch would never finish.
 *
 * Every worker process runs a reconciler; a lease in Redis lets one of them sweep at a time, and
 * whichever holds it next carries on, so it survives restarts. A sweep reads the runs not yet
 * ended (an index kept by the run store), oldest first, and looks for a live job of each: a job
 * of any of its stages that is waiting, active, delayed or waiting for children, or its batch's
 * dispatch job while it is queued. A run with none is looked at again a moment later (a job may
 * have moved between two reads) and then failed through the transition script, which ends a run
 * once whoever else tries. It also releases the admissions of runs a key holds whose run was
 * never written (live-runs.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { LIVE_STATUSES, type RunError } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logger';
import { AGENT_QUEUE, agentTurnJobId, dispatchJobId, jobId, QUEUES, type ActiveRun, type RunStore } from '@switchyard/pipeline';
import { LeasedInterval } from './leased-interval.js';

export interface ReconcilerOptions {
  store: RunStore;
  connection: Redis;
  prefix: string;
  logger: Logger;
  /** Ms between sweeps (default 30000: twice BullMQ's default stalled interval). */
  intervalMs?: number;
  /** Runs younger than this are left alone: their first jobs may still be on their way (default intervalMs). */
  graceMs?: number;
  /** Ms between finding a run without live jobs and looking again before failing it (default 1000). */
  recheckMs?: number;
}

/** BullMQ's reason for a job failed because it stalled more often than its limit. */
const STALLED_LIMIT_REASON = 'job stalled more than allowable limit';
const LIVE_STATES = new Set(['waiting', 'wait', 'active', 'delayed', 'prioritized', 'waiting-children']);
const PAGE = 200;
/**
 * How old an admission of a run a key holds must be before a sweep may release it for want of its
 * run: far longer than a run takes to be written after its admission, even on a loaded machine.
 */
const ORPHAN_GRACE_MS = 60_000;
/** Runs one sweep looks at, at most; the rest wait for the next sweep. */
const MAX_RUNS_PER_SWEEP = 20_000;

export interface SweepReport {
  checked: number;
  ended: number;
}

export class RunReconciler {
  readonly #options: Required<Omit<ReconcilerOptions, 'graceMs'>> & { graceMs: number };
  readonly #queues = new Map<string, Queue>();
  readonly #interval: LeasedInterval<SweepReport>;

  constructor(options: ReconcilerOptions) {
    const intervalMs = options.intervalMs ?? 30_000;
    this.#options = { recheckMs: 1000, ...options, intervalMs, graceMs: options.graceMs ?? intervalMs };
    this.#interval = new LeasedInterval({
      connection: options.connection,
      key: options.store.keys.reconcilerLease,
      intervalMs,
      pass: () => this.sweep(),
      onError: (error) => options.logger.warn({ err: error }, 'the run reconciler\'s sweep failed; it tries again next time'),
    });
  }

  start(): void {
    this.#interval.start();
  }

  async stop(): Promise<void> {
    await this.#interval.stop();
    await Promise.all([...this.#queues.values()].map((q) => q.close()));
  }

  /** Sweeps when this process holds (or takes) the lease; null when another process does. */
  sweepIfLeased(): Promise<SweepReport | null> {
    return this.#interval.passIfLeased();
  }

  /**
   * BullMQ's own word that a stage job failed for good (its last attempt, or unrecoverable): the
   * run is failed at once, without waiting for a sweep. A failure of the stage code has failed the
   * run already, and the transition script makes this a no-op then.
   */
  async onJobFailed(job: Job | undefined, error: Error): Promise<void> {
    const runId = (job?.data as { run_id?: unknown } | undefined)?.run_id;
    if (!job || typeof runId !== 'string') return;
    const final = error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    const stage = job.id?.startsWith(`${runId}.`) ? job.id.slice(runId.length + 1) : undefined;
    // A job that lost its workers past BullMQ's limit after its stage had completed (its worker
    // died between the two) did its work: its dependents were added before it would have completed.
    if (stage && error.message === STALLED_LIMIT_REASON) {
      const status = await this.#options.store.redis.hget(this.#options.store.keys.run(runId), `${stage}.status`);
      if (status === 'completed' || status === 'skipped') return;
    }
    const runError: RunError = { code: 'job_failed', message: `The ${stage ?? job.name} job failed: ${error.message}`, ...(stage ? { stage } : {}), retryable: false };
    const { moved } = await this.#options.store.transition({ runId, from: LIVE_STATUSES, to: 'failed', error: runError });
    if (moved) {
      this.#options.logger.warn({ run_id: runId, err: runError }, 'a stage job failed outside its stage; the run is failed');
      await this.#options.store.publishCancel(runId);
    }
  }

  /** One pass over the runs not yet ended; fails those without a live job. */
  async sweep(): Promise<SweepReport> {
    const { store, graceMs, recheckMs } = this.#options;
    const createdBefore = Date.now() - graceMs;
    const suspects: ActiveRun[] = [];
    const gone: string[] = [];
    const settled: ActiveRun[] = [];
    let checked = 0;
    for (let offset = 0; offset < MAX_RUNS_PER_SWEEP; offset += PAGE) {
      const runs = await store.listActiveRuns({ createdBefore, offset, count: PAGE });
      for (const run of runs) {
        checked += 1;
        if (!run.status) gone.push(run.id);
        // Ended, but its status change stopped before the shared slot's step (run-settle.ts).
        else if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') settled.push(run);
        else if (!(await this.#hasLiveJob(run))) suspects.push(run);
      }
      if (runs.length < PAGE) break;
    }
    await store.forgetActiveRuns(gone);
    await store.settleEndedRuns(settled);
    // The runs its key holds: an admission whose run was never written (its process died between the two) is released.
    await store.liveRuns.releaseOrphans(Math.max(graceMs, ORPHAN_GRACE_MS));
    if (suspects.length === 0) return { checked, ended: 0 };
    await sleep(recheckMs);
    let ended = 0;
    // Read again: a run's stages change when a map step fans out, and a run may have ended.
    for (const run of await store.getActiveRuns(suspects.map((r) => r.id))) {
      if (!run.status || ['completed', 'failed', 'cancelled'].includes(run.status)) continue;
      if (await this.#hasLiveJob(run)) continue;
      if (await this.#fail(run)) ended += 1;
    }
    return { checked, ended };
  }

  async #hasLiveJob(run: ActiveRun): Promise<boolean> {
    if (run.status === 'queued' && run.batchId && LIVE_STATES.has(await this.#queue(QUEUES.dispatch).getJobState(dispatchJobId(run.batchId)))) return true;
    for (const stage of run.stages) {
      const state = await this.#jobState(run, stage);
      if (LIVE_STATES.has(state)) return true;
    }
    return false;
  }

  /** The state of a stage's job; a map branch `step.key` runs on its step's queue. */
  async #jobState(run: ActiveRun, stage: string): Promise<string> {
    const queue = run.stepQueues[stage.split('.')[0] ?? stage];
    if (!queue) return 'unknown';
    if (queue !== AGENT_QUEUE) return this.#queue(queue).getJobState(jobId(run.id, stage));
    // An agent's stage lives in the job of its latest turn, or in the next turn's, which waits for
    // the calls it asked for (its children) and so is live as long as any of them is.
    const turns = Number((await this.#options.store.redis.hget(this.#options.store.keys.run(run.id), `${stage}.agent.turns`)) ?? 0);
    const ids = [jobId(run.id, stage), ...[turns, turns + 1].filter((turn) => turn >= 2).map((turn) => agentTurnJobId(run.id, stage, turn))];
    const states = await Promise.all(ids.map((id) => this.#queue(queue).getJobState(id)));
    return states.find((state) => LIVE_STATES.has(state)) ?? states.find((state) => state === 'failed') ?? 'unknown';
  }

  async #fail(run: ActiveRun): Promise<boolean> {
    const { store, logger } = this.#options;
    const states = await Promise.all(run.stages.map(async (stage) => [stage, await this.#jobState(run, stage)] as const));
    const lost = states.find(([, state]) => state === 'failed' || state === 'unknown');
    const error: RunError = {
      code: 'run_stranded',
      message: `The run's jobs ended outside its stages (${states.map(([stage, state]) => `${stage}: ${state === 'unknown' ? 'gone' : state}`).join(', ')}), e.g. a job stalled more often than allowed or was removed`,
      ...(lost ? { stage: lost[0] } : {}),
      retryable: false,
      details: { jobs: Object.fromEntries(states) },
    };
    const { moved } = await store.transition({ runId: run.id, from: LIVE_STATUSES, to: 'failed', error, batchId: run.batchId });
    if (moved) {
      logger.warn({ run_id: run.id, err: error }, 'a run had no live job left; it is failed');
      await store.publishCancel(run.id);
    }
    return moved;
  }

  #queue(name: string): Queue {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.#options.connection, prefix: this.#options.prefix });
      // The shared connection's errors are reported where it is followed (see followRedis).
      queue.on('error', () => undefined);
      this.#queues.set(name, queue);
    }
    return queue;
  }
}
