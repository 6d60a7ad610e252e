/**
 * Folds each ended run into its archive (packages/pipeline's run-compaction.ts) a little after it
 * ended, off the stages' path: a pass every `intervalMs` takes the runs that ended more than
 * `afterMs` ago, so that clients following a run have read its end from the live stream first.
 * Like the janitor, every worker process runs one and a lease lets one pass at a time. It keeps a
 * connection of its own, since a compaction WATCHes the runs it reads.
 */
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

export interface CompactorReport extends CompactionReport {
  /** CPU this process spent on the pass (ms), compressing included. */
  cpu_ms: number;
}

export class RunCompactor {
  readonly #options: Required<Omit<RunCompactorOptions, 'connection'>>;
  readonly #redis: Redis;
  readonly #interval: LeasedInterval<CompactorReport>;

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

  async stop(): Promise<void> {
    await this.#interval.stop();
    this.#redis.disconnect();
  }

  /** Compacts the runs that ended more than `afterMs` ago, up to `maxRunsPerPass`. */
  async pass(): Promise<CompactorReport> {
    const { store, afterMs, maxRunsPerPass, logger } = this.#options;
    const cpu = process.cpuUsage();
    const report = await compactEndedRuns({ redis: this.#redis, keys: store.keys, endedBefore: Date.now() - afterMs, retentionSeconds: store.retentionSeconds, maxRuns: maxRunsPerPass });
    const used = process.cpuUsage(cpu);
    const result = { ...report, cpu_ms: Math.round((used.user + used.system) / 100) / 10 };
    if (report.compacted > 0 || report.deferred > 0) logger.debug(result, 'ended runs compacted');
    return result;
  }
}
