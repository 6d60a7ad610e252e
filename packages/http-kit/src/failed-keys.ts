/**
 * Wrong keys counted per client address (see client-address.ts), so that keys cannot be guessed
 * at the speed of the network: after `limit` wrong keys within a window, the address's wrong keys
 * are refused with 429 and `Retry-After` until the window ends, before any Redis round trip. A
 * valid key is never refused (behind a proxy or a NAT, one client's wrong keys must not lock out
 * everyone else's right ones): the limit caps what guessing costs, and a 256-bit key is not guessed.
 *
 * The count is in Redis, shared by every process of the deployment (one counter per address, a
 * fixed window from its first failure). Checking Redis before every keyed request would cost the
 * API a round trip per call, so a process asks Redis only when a key is wrong, and remembers the
 * addresses it learnt are refused: an address over its limit may have one more key compared by
 * each process that has not yet seen it fail, at most `limit + processes` keys per window.
 * `POST /ui/session`, rare and the dashboard's door, asks Redis before it counts a wrong key.
 */
import type { Redis } from 'ioredis';
import type { TrustProxy } from '@switchyard/config';
import { keyspace } from '@switchyard/redis';
import { boundedRedisCall } from './redis-call.js';

export interface FailedKeyLimiterOptions {
  redis: Redis;
  /** The deployment's key prefix: counters live at `{sy}:auth:failed:<address>`. */
  prefix: string;
  /** Wrong keys an address may present per window; the next request is refused (default 10). */
  limit?: number;
  /** The window, in ms, from an address's first wrong key (default 60000). */
  windowMs?: number;
  /** Refused addresses this process remembers, at most; the oldest is forgotten first (default 10000). */
  maxRemembered?: number;
  /** Told when a failure could not be counted (Redis away): the key is refused all the same (default: nobody). */
  onError?: (error: unknown) => void;
}

/** How a service counts wrong keys: the limiter's bounds, and which proxies may name the client. */
export interface FailedKeyPolicy extends Pick<FailedKeyLimiterOptions, 'limit' | 'windowMs'> {
  /**
   * The proxies trusted to name the client in `X-Forwarded-For` (TRUST_PROXY), set as the
   * service's Express `trust proxy` (default false: the peer's address is the client's).
   */
  trustProxy?: TrustProxy;
}

// One round trip: count the failure, start the window with the first, answer the count and what is left of the window.
const FAIL_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

const PEEK_SCRIPT = `return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}`;

export class FailedKeyLimiter {
  readonly #redis: Redis;
  readonly #head: string;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxRemembered: number;
  readonly #onError: (error: unknown) => void;
  /** Address → when its refusal ends (ms since the epoch), for the addresses this process learnt of. */
  readonly #refused = new Map<string, number>();

  constructor(options: FailedKeyLimiterOptions) {
    this.#redis = options.redis;
    this.#head = `${keyspace(options.prefix).shared}:auth:failed:`;
    this.#limit = options.limit ?? 10;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxRemembered = options.maxRemembered ?? 10_000;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Ms until `address` may try again, as far as this process knows without asking Redis; 0 when not refused. */
  knownRefusal(address: string): number {
    const until = this.#refused.get(address);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left > 0) return left;
    this.#refused.delete(address);
    return 0;
  }

  /** Ms until `address` may try again, asking Redis (503 HttpError while it is away); 0 when not refused. */
  async refusal(address: string): Promise<number> {
    const [count, ttl] = (await boundedRedisCall(this.#redis, () => this.#redis.eval(PEEK_SCRIPT, 1, this.#head + address))) as [number, number];
    return this.#learn(address, count, ttl);
  }

  /**
   * Counts a wrong key from `address`. Answers the ms the address is refused for when this key
   * was already past the limit (a process that had not learnt of the refusal compared it), 0
   * otherwise: the wrong key that reaches the limit is answered as wrong, and the next request as
   * refused. Never throws: a failure that cannot be counted is only a wrong key.
   */
  async fail(address: string): Promise<number> {
    try {
      const [count, ttl] = (await boundedRedisCall(this.#redis, () => this.#redis.eval(FAIL_SCRIPT, 1, this.#head + address, this.#windowMs))) as [number, number];
      const refused = this.#learn(address, count, ttl);
      return count > this.#limit ? refused : 0;
    } catch (error) {
      this.#onError(error);
      return 0;
    }
  }

  #learn(address: string, count: number, ttl: number): number {
    if (count < this.#limit || ttl <= 0) return 0;
    if (this.#refused.size >= this.#maxRemembered) {
      const oldest = this.#refused.keys().next();
      if (!oldest.done) this.#refused.delete(oldest.value);
    }
    this.#refused.delete(address);
    this.#refused.set(address, Date.now() + ttl);
    return ttl;
  }
}

/** `Retry-After` in whole seconds, at least 1, for a refusal of `ms`. */
export const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));
