/**
 * How many MCP sessions a key, and the deployment, may hold. A session lives in Redis for a day
 * after its last request (its record holds the client's initialize params), whichever bridge
 * replica opened it, so the count is kept in Redis too: a sorted set of the deployment's sessions
 * and one per key, each session scored by when it lapses. A new session is admitted by one
 * script (expired ones dropped, both counts checked, the session added), so a burst of
 * initialize requests from any number of replicas cannot get past a cap. Both sets are in the
 * shared slot (`{sy}`), so the script runs on a Redis Cluster too.
 */
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';

export interface SessionLimits {
  /** Sessions the deployment holds at once, every key together (default 1000); one more is refused with 503. */
  maxSessions?: number;
  /** Sessions one API key holds at once (default 100); one more is refused with 429. */
  maxSessionsPerKey?: number;
}

export const DEFAULT_SESSION_LIMITS: Required<SessionLimits> = { maxSessions: 1000, maxSessionsPerKey: 100 };

/** Admitted, or refused because of the key's cap or the deployment's, with when a place frees up at the latest. */
export type Admission = { admitted: true } | { admitted: false; scope: 'key' | 'all'; held: number; limit: number; retryAfterSeconds: number };

/**
 * KEYS: every session, the key's sessions. ARGV: session id, idle ms, most in all, most per key.
 * Answers {} when admitted, else {scope, held, ms until the earliest session lapses}.
 */
const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local idle = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local function refuse(scope, key)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {scope, redis.call('ZCARD', key), math.max(0, tonumber(first[2] or now) - now)}
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return refuse('key', KEYS[2]) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return refuse('all', KEYS[1]) end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + idle, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], idle)
end
return {}
`;

/** KEYS: every session, the key's sessions. ARGV: session id, idle ms. Pushes the session's lapse back, if it is counted. */
const TOUCH_SCRIPT = `
local t = redis.call('TIME')
local lapses = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
for i = 1, 2 do
  if redis.call('ZSCORE', KEYS[i], ARGV[1]) then
    redis.call('ZADD', KEYS[i], lapses, ARGV[1])
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
  end
end
return 1
`;

export class SessionQuota {
  readonly #redis: Redis;
  readonly #allKey: string;
  readonly #idleMs: number;
  readonly #limits: Required<SessionLimits>;

  /** @param options.ttlSeconds idle seconds before a session lapses, as its record's (default one day) */
  constructor(options: { redis: Redis; prefix: string; ttlSeconds?: number; limits?: SessionLimits }) {
    this.#redis = options.redis;
    this.#allKey = `${keyspace(options.prefix).shared}:mcp:sessions`;
    this.#idleMs = (options.ttlSeconds ?? 24 * 3600) * 1000;
    this.#limits = { ...DEFAULT_SESSION_LIMITS, ...options.limits };
  }

  get limits(): Required<SessionLimits> {
    return this.#limits;
  }

  #keys(keyId: string): [string, string] {
    return [this.#allKey, `${this.#allKey}:key:${keyId}`];
  }

  /** Counts a new session of `keyId`, unless a cap is reached. */
  async admit(sessionId: string, keyId: string): Promise<Admission> {
    const reply = (await this.#redis.eval(ADMIT_SCRIPT, 2, ...this.#keys(keyId), sessionId, this.#idleMs, this.#limits.maxSessions, this.#limits.maxSessionsPerKey)) as [] | ['key' | 'all', number, number];
    if (reply.length === 0) return { admitted: true };
    const [scope, held, lapsesInMs] = reply;
    return { admitted: false, scope, held, limit: scope === 'key' ? this.#limits.maxSessionsPerKey : this.#limits.maxSessions, retryAfterSeconds: Math.max(1, Math.ceil(lapsesInMs / 1000)) };
  }

  /** The session was used: it lapses a full idle time from now, as its record does. */
  async touch(sessionId: string, keyId: string): Promise<void> {
    await this.#redis.eval(TOUCH_SCRIPT, 2, ...this.#keys(keyId), sessionId, this.#idleMs);
  }

  /** The session ended (or never began): its place is free. */
  async release(sessionId: string, keyId: string): Promise<void> {
    const [all, own] = this.#keys(keyId);
    await this.#redis.multi().zrem(all, sessionId).zrem(own, sessionId).exec();
  }

  /** Sessions counted now, in all and for `keyId` (lapsed ones included until the next admission drops them). */
  async held(keyId: string): Promise<{ all: number; key: number }> {
    const [all, own] = this.#keys(keyId);
    const [[, inAll], [, forKey]] = (await this.#redis.multi().zcard(all).zcard(own).exec()) as [[null, number], [null, number]];
    return { all: inAll, key: forKey };
  }
}
