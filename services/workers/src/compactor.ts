/**
 * Folds each ended run into its archive (packages/pipeline's run-compaction.ts) a little after it
 * ended, off the stages' path: a pass every `intervalMs` takes the runs that ended more than
 * `afterMs` ago, so that clients following a run have read its end from the live stream first.
 * It then removes the step jobs of those runs that failed only because the run had ended. Like
 * the janitor, every worker process runs one and a lease lets one pass at a time. It keeps a
 * connection of its own, since a compaction WATCHes the runs it reads.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/logger';
import { compactEndedRuns, type CompactionReport, type RunStore } from '@switchyard/pipeline';
import { LeasedInterval } from './leased-interval.js';

export interface RunCompactorOptions {
  store: RunStore;
  /** The process's shared connection, for the lease; the compactor duplicates it for its own work. */
  connection: Redis;
  logger: Logger;
  /** Ms between passes (default 5000). */
  intervalMs?: number;
  /** Ms after its end before a run is compacted (default 10000). */
  afterMs?: number;
  /** Runs compacted per pass, at most (default 5000). */
  maxRunsPerPass?: number;
}

export interface CompactorReport extends Omit<CompactionReport, 'jobs'> {
  /** Failed step jobs removed: refusals to work on a run that had ended (see removeRefusedJobs). */
  jobs_removed: number;
  /** CPU this process spent on the pass (ms), compressing included. */
  cpu_ms: number;
}

/** What a stage job fails with when its run has ended before it ran (stage-runner.ts): no failure of the work. */
const REFUSAL = /^run \S+ is (completed|failed|cancelled)$/;

export class RunCompactor {
  readonly #options: Required<Omit<RunCompactorOptions, 'connection'>>;
  readonly #redis: Redis;
  readonly #interval: LeasedInterval<CompactorReport>;
  readonly #queues = new Map<string, Queue>();

  constructor(options: RunCompactorOptions) {
    this.#options = { intervalMs: 5000, afterMs: 10_000, maxRunsPerPass: 5000, ...options };
    this.#redis = options.connection.duplicate();
    this.#redis.on('error', () => undefined); // the shared connection's watch reports outages
    this.#interval = new LeasedInterval({
      connection: options.connection,
      key: options.store.keys.compactorLease,
      intervalMs: this.#options.intervalMs,
      pass: () => this.pass(),
      onError: (error) => options.logger.warn({ err: error }, 'the compaction pass failed; it tries again next time'),
    });
  }

  start(): void {
    this.#interval.start();
  }

  /**
   * Removes the compacted runs' step jobs that failed only because their run had ended (the
   * stages a cancel or a sibling's failure stopped, steps queued behind them): the run's record
   * tells what happened, and each such job would otherwise stay a day. Jobs that failed in their
   * work stay for a look in Bull Board (removeOnFail). Their reasons are read in one round trip.
   */
  async #removeRefusedJobs(jobs: readonly { queue: string; jobId: string }[]): Promise<number> {
    if (jobs.length === 0) return 0;
    const { prefix } = this.#options.store;
    const read = this.#redis.pipeline();
    for (const job of jobs) read.hget(`${prefix}:${job.queue}:${job.jobId}`, 'failedReason');
    const reasons = (await read.exec()) ?? [];
    const refused = jobs.filter((_, i) => REFUSAL.test(String(reasons[i]?.[1] ?? '')));
    for (const job of refused) await this.#queue(job.queue).remove(job.jobId);
    return refused.length;
  }

  #queue(name: string): Queue {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.#redis, prefix: this.#options.store.prefix });
      queue.on('error', () => undefined); // the connection's errors are reported where it is followed
      this.#queues.set(name, queue);
    }
    return queue;
  }

  async stop(): Promise<void> {
    await this.#interval.stop();
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    this.#redis.disconnect();
  }

  /** Compacts the runs that ended more than `afterMs` ago, up to `maxRunsPerPass`. */
  async pass(): Promise<CompactorReport> {
    const { store, afterMs, maxRunsPerPass, logger } = this.#options;
    const cpu = process.cpuUsage();
    const { jobs, ...report } = await compactEndedRuns({ redis: this.#redis, keys: store.keys, endedBefore: Date.now() - afterMs, retentionSeconds: store.retentionSeconds, maxRuns: maxRunsPerPass });
    const removed = await this.#removeRefusedJobs(jobs);
    const used = process.cpuUsage(cpu);
    const result = { ...report, jobs_removed: removed, cpu_ms: Math.round((used.user + used.system) / 100) / 10 };
    if (report.compacted > 0 || report.deferred > 0) logger.debug(result, 'ended runs compacted');
    return result;
  }
}
