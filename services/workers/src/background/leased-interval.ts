/**
 * Periodic work that one worker process at a time does, whichever: a lease in Redis (SET NX PX,
 * two intervals long) is taken by the first process to ask and renewed by it on each pass, so the
 * work goes on when its holder dies (another takes the lease within two intervals), and a pass
 * never overlaps the previous one in the same process.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface LeasedIntervalOptions<T> {
  connection: Redis;
  /** The lease's key, one per kind of work. */
  key: string;
  intervalMs: number;
  pass: () => Promise<T>;
  /** A pass that failed; the next interval tries again. */
  onError: (error: unknown) => void;
}

export class LeasedInterval<T> {
  readonly #options: LeasedIntervalOptions<T>;
  readonly #holder = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;

  constructor(options: LeasedIntervalOptions<T>) {
    this.#options = options;
  }

  start(): void {
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = this.passIfLeased()
        .catch(this.#options.onError)
        .finally(() => (this.#running = undefined));
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** Runs a pass when this process holds (or takes) the lease; null when another process does. */
  async passIfLeased(): Promise<T | null> {
    const { connection, key, intervalMs } = this.#options;
    const taken = await connection.set(key, this.#holder, 'PX', intervalMs * 2, 'NX');
    if (taken !== 'OK' && (await connection.get(key)) !== this.#holder) return null;
    await connection.pexpire(key, intervalMs * 2);
    return this.#options.pass();
  }
}
