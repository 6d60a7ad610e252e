/**
 * Owed webhooks into delivery jobs. A run (or batch) submitted with `notify` has its target
 * recorded (`notify:targets`) before it can end; the settle step that ends it lists the target as
 * owed (`notify:pending`, run-settle.ts) in the same script call, so an end cannot be lost. Then
 * `flush` adds the delivery job (id `notify.<kind>.<id>`: added twice, it is one job) and only
 * after that drops the target from both lists. The process that ended the run flushes at once; every
 * worker process also sweeps the owed list, so an end whose process died before its flush is
 * delivered a few seconds later.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullmqTelemetry } from '@switchyard/telemetry';
import { BULLMQ_EVENTS_MAXLEN, JOB_CATALOG, notifyJobId, QUEUES, type NotifyDeliveryJob } from '../catalog.js';
import { runKeys, type RunKeys } from '../store/keys.js';

/** Targets enqueued per flush round. */
const FLUSH_CHUNK = 100;

export interface NotifierOptions {
  redis: Redis;
  prefix: string;
  /** Told when a flush fails (it is tried again at the next one; default: ignored). */
  onError?: (error: unknown) => void;
}

export class Notifier {
  readonly queue: Queue<NotifyDeliveryJob>;
  readonly #redis: Redis;
  readonly #keys: RunKeys;
  readonly #onError: (error: unknown) => void;
  #flushing: Promise<number> | null = null;
  #again = false;
  #sweep: NodeJS.Timeout | undefined;

  constructor(options: NotifierOptions) {
    this.#redis = options.redis;
    this.#keys = runKeys(options.prefix);
    this.#onError = options.onError ?? (() => undefined);
    this.queue = new Queue<NotifyDeliveryJob>(QUEUES.notifyDelivery, { connection: options.redis, prefix: options.prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } }, ...bullmqTelemetry() });
    this.queue.on('error', () => undefined); // the shared connection's errors are reported where it is followed
  }

  /** Records where the end of `target` (`run:<id>` or `batch:<id>`) is told; before it can end. */
  async recordTarget(target: string, url: string): Promise<void> {
    await this.#redis.hset(this.#keys.notifyTargets, target, url);
  }

  /**
   * Adds the delivery job of every owed webhook (or of those owed for at least `olderThanMs`).
   * Calls made while one runs are folded into one more round after it. Resolves with how many it added.
   */
  flush(olderThanMs = 0): Promise<number> {
    if (this.#flushing) {
      this.#again = true;
      return this.#flushing;
    }
    const run = async (): Promise<number> => {
      let added = 0;
      do {
        this.#again = false;
        added += await this.#flushOwed(olderThanMs);
      } while (this.#again);
      return added;
    };
    this.#flushing = run().finally(() => (this.#flushing = null));
    return this.#flushing;
  }

  /** A flush for whoever ended a run: errors told, never thrown (the sweep tries again). */
  owed = (): void => {
    this.flush().catch(this.#onError);
  };

  /** Sweeps the owed list every `intervalMs` for ends owed at least `graceMs` (what a died process left). */
  startSweeping(options: { intervalMs: number; graceMs: number }): void {
    this.#sweep = setInterval(() => void this.flush(options.graceMs).catch(this.#onError), options.intervalMs);
    this.#sweep.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await this.#flushing?.catch(() => undefined);
    await this.queue.close();
  }

  async #flushOwed(olderThanMs: number): Promise<number> {
    let added = 0;
    for (;;) {
      const targets = await this.#redis.zrangebyscore(this.#keys.notifyPending, '-inf', Date.now() - olderThanMs, 'LIMIT', 0, FLUSH_CHUNK);
      if (targets.length === 0) return added;
      const urls = await this.#redis.hmget(this.#keys.notifyTargets, ...targets);
      const jobs = targets.flatMap((target, i) => (urls[i] ? [{ name: 'notify.deliver', data: { target, url: urls[i] }, opts: { ...JOB_CATALOG['notify.deliver'].options, jobId: notifyJobId(target) } }] : []));
      if (jobs.length > 0) await this.queue.addBulk(jobs);
      await this.#redis.multi().zrem(this.#keys.notifyPending, ...targets).hdel(this.#keys.notifyTargets, ...targets).exec();
      added += jobs.length;
      if (targets.length < FLUSH_CHUNK) return added;
    }
  }
}
