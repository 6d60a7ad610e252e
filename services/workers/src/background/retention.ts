/**
 * What a run leaves after its retention: nothing. The run's own keys (hash, events, outputs) and
 * its batch's expire by themselves (the transition script sets their TTL when the run ends), and
 * idempotency keys never outlive the run; this janitor removes the rest, which nothing would
 * otherwise remove while nobody lists runs: the run and batch indexes' ids of expired ones, and the BullMQ
 * jobs (completed or failed) older than the retention, by BullMQ's own `clean`. Each step is
 * bounded, so a large backlog is worked off over several passes.
 *
 * It also caps BullMQ's own event stream of each queue (BULLMQ_EVENTS_MAXLEN), which is trimmed
 * by length, not age. Like the reconciler, every worker process runs one and a lease in Redis lets one pass at a time.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/logger';
import { BULLMQ_EVENTS_MAXLEN, crashPoint, type RunStore } from '@switchyard/pipeline';
import { LeasedInterval } from './leased-interval.js';

export interface RetentionJanitorOptions {
  store: RunStore;
  connection: Redis;
  prefix: string;
  logger: Logger;
  /** The queues whose finished jobs it cleans: those this process serves. */
  queueNames: readonly string[];
  /** Ms between passes (default 60000). */
  intervalMs?: number;
  /** Ids and jobs removed per step of a pass, at most (default 1000). */
  batchSize?: number;
}

export interface JanitorReport {
  index_ids_pruned: number;
  jobs_removed: number;
}

export class RetentionJanitor {
  readonly #options: Required<RetentionJanitorOptions>;
  readonly #queues: Queue[];
  readonly #interval: LeasedInterval<JanitorReport>;

  constructor(options: RetentionJanitorOptions) {
    this.#options = { intervalMs: 60_000, batchSize: 1000, ...options };
    this.#queues = options.queueNames.map((name) => {
      // Made with every worker process, so each queue's event stream is capped from the start.
      const queue = new Queue(name, { connection: options.connection, prefix: options.prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } } });
      queue.on('error', () => undefined); // the shared connection's errors are reported where it is followed
      return queue;
    });
    this.#interval = new LeasedInterval({
      connection: options.connection,
      key: options.store.keys.janitorLease,
      intervalMs: this.#options.intervalMs,
      pass: () => this.pass(),
      onError: (error) => options.logger.warn({ err: error }, 'the retention pass failed; it tries again next time'),
    });
  }

  start(): void {
    this.#interval.start();
  }

  async stop(): Promise<void> {
    await this.#interval.stop();
    await Promise.all(this.#queues.map((q) => q.close()));
  }

  /** One bounded pass: prune the run index, then clean each queue's finished jobs. */
  async pass(): Promise<JanitorReport> {
    const { store, batchSize } = this.#options;
    const retentionMs = store.retentionSeconds * 1000;
    const indexIdsPruned = await store.pruneRunIndex({ createdBefore: Date.now() - retentionMs, maxIds: batchSize * 10 });
    // Each step is whole on its own: a janitor dying between them leaves the rest to the next pass (another process's, once the lease lapses).
    crashPoint('retention.pruned');
    let jobsRemoved = 0;
    for (const queue of this.#queues) {
      for (const type of ['completed', 'failed'] as const) jobsRemoved += (await queue.clean(retentionMs, batchSize, type)).length;
    }
    return { index_ids_pruned: indexIdsPruned, jobs_removed: jobsRemoved };
  }
}
