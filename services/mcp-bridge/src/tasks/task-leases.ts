/**
 * Leases on the MCP tasks whose calls run in this bridge process. While a call runs, its task's
 * lease is renewed; when the process dies, renewals stop and the first reader past the lease
 * fails the task (see RedisTaskStore). When the process stops on purpose, `close` fails its
 * running tasks at once: their calls cannot finish anywhere else.
 */
import type { Redis } from 'ioredis';

// KEYS[1] task hash. ARGV: lease end (ms since the epoch). Renews a working task's lease only.
const RENEW_SCRIPT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'working' then return 0 end
redis.call('HSET', KEYS[1], 'lease_until', ARGV[1])
return 1
`;

export interface TaskLeasesOptions {
  redis: Redis;
  /** How long a working task stays working without a renewal, in ms (default 15 s); renewed every third of it. */
  leaseMs?: number;
  /** Fails a task this process can no longer finish (its store's doing, so the result is stored as any other). */
  failStopped: (taskKey: string) => Promise<void>;
}

export class TaskLeases {
  readonly leaseMs: number;
  readonly #redis: Redis;
  readonly #failStopped: (taskKey: string) => Promise<void>;
  /** Task keys whose calls run in this process. */
  readonly #held = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: TaskLeasesOptions) {
    this.#redis = options.redis;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.#failStopped = options.failStopped;
  }

  /** Tasks whose calls run in this process now. */
  get size(): number {
    return this.#held.size;
  }

  /** The lease end for a task taken now. */
  until(): number {
    return Date.now() + this.leaseMs;
  }

  hold(taskKey: string): void {
    this.#held.add(taskKey);
    this.#timer ??= setInterval(() => void this.#renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
  }

  release(taskKey: string): void {
    this.#held.delete(taskKey);
  }

  holds(taskKey: string): boolean {
    return this.#held.has(taskKey);
  }

  async close(): Promise<void> {
    this.#stopTimer();
    const held = [...this.#held];
    this.#held.clear();
    await Promise.all(held.map((key) => this.#failStopped(key).catch(() => undefined)));
  }

  async #renew(): Promise<void> {
    const keys = [...this.#held];
    if (keys.length === 0) return this.#stopTimer();
    const until = String(this.until());
    try {
      const renewed = await Promise.all(keys.map((key) => this.#redis.eval(RENEW_SCRIPT, 1, key, until)));
      // 0: the task ended elsewhere (cancelled) or expired; nothing of it is left to renew.
      keys.forEach((key, i) => renewed[i] === 0 && this.#held.delete(key));
    } catch {
      // Redis unreachable for a moment: the next renewal comes well within the lease.
    }
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
