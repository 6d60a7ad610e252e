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
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import { compactEndedRuns, type CompactionReport, type RunStore } from '@switchyard/pipeline';
import { LeasedInterval } from './leased-interval.js';

/** How long after its end a run is compacted, by default (ms). */
export const COMPACT_AFTER_MS_DEFAULT = 10_000;

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

/**
 * The step jobs, among KEYS (job hashes), that failed only because their run had ended before
 * they ran (stage-runner.ts's refusal, `run <id> is <status>`), or never ran because a child of
 * theirs failed for good (BullMQ's `child <key> failed`: the child's job, and its run's record,
 * tell why): their 1-based places. A script, so
 * that a pass over a thousand runs reads their seven thousand reasons in one command, not seven
 * thousand (the job hashes are in BullMQ's slot, `{sy}` on a cluster, so one call holds them).
 */
const REFUSED_JOBS_SCRIPT = `
local refused = {}
for i, key in ipairs(KEYS) do
  local reason = redis.call('HGET', key, 'failedReason')
  local status = reason and string.match(reason, '^run %S+ is (%l+)$')
  if status == 'completed' or status == 'failed' or status == 'cancelled' or (reason and string.match(reason, '^child %S+ failed$')) then refused[#refused + 1] = i end
end
return refused
`;

/** Job hashes per script call: each call blocks Redis while it reads them. */
const JOBS_PER_CALL = 1000;

export class RunCompactor {
  readonly #options: Required<Omit<RunCompactorOptions, 'connection'>>;
  readonly #redis: Redis;
  readonly #refusedJobs: ScriptCommand<number[]>;
  readonly #interval: LeasedInterval<CompactorReport>;
  readonly #queues = new Map<string, Queue>();

  constructor(options: RunCompactorOptions) {
    this.#options = { intervalMs: 5000, afterMs: COMPACT_AFTER_MS_DEFAULT, maxRunsPerPass: 5000, ...options };
    this.#redis = options.connection.duplicate();
    this.#redis.on('error', () => undefined); // the shared connection's watch reports outages
    this.#refusedJobs = scriptCommand(this.#redis, 'syRefusedJobs', REFUSED_JOBS_SCRIPT);
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
   * work stay for a look in Bull Board (removeOnFail). A completed run can have some too: a job
   * of it added again, or retried after its worker stalled, once the run had completed.
   */
  async #removeRefusedJobs(jobs: readonly { queue: string; jobId: string }[]): Promise<number> {
    const { prefix } = this.#options.store;
    let removed = 0;
    for (let from = 0; from < jobs.length; from += JOBS_PER_CALL) {
      const some = jobs.slice(from, from + JOBS_PER_CALL);
      const places = await this.#refusedJobs(some.length, ...some.map((job) => `${prefix}:${job.queue}:${job.jobId}`));
      for (const place of places) {
        const job = some[place - 1];
        if (job) await this.#queue(job.queue).remove(job.jobId);
      }
      removed += places.length;
    }
    return removed;
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
