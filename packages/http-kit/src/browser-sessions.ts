/**
 * Browser sessions as records in Redis, so that a session ends when it is ended: the cookie holds
 * a random token (256 bits), the record is found by the token's digest and names the digest of
 * the key that opened it. Ending the session deletes the record, so the same cookie replayed
 * later, to this process or another, after a restart or not, is refused. A session also ends
 * after `idleMs` without a request, `maxMs` after it was opened whatever its use, and when its key
 * is no longer configured (the caller checks the key against its key ring on every request).
 *
 * Layout, under the deployment's shared slot so that the scripts below stay in one cluster slot:
 *   {sy}:ui:session:<token digest>   hash: key (the key's digest), opened (ms)   ttl: idle, capped by max
 *   {sy}:ui:sessions:<key digest>    sorted set: token digests by opening time     ttl: max
 * The second bounds the sessions one key holds: opening one more than `perKey` ends the oldest.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import { boundedRedisCall } from './redis-call.js';

export interface BrowserSessionsOptions {
  redis: Redis;
  /** The deployment's key prefix. */
  prefix: string;
  /** Ms without a request after which a session ends (default 2 h). */
  idleMs?: number;
  /** Ms after its opening at which a session ends, however busy (default 24 h). */
  maxMs?: number;
  /** Sessions one key may hold; opening one more ends its oldest (default 50). */
  perKey?: number;
}

/** A token as this store makes them: 32 random bytes, base64url. Anything else names no session and reads no key. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const OPEN_SCRIPT = `
local now, idle, max, perKey = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'key', ARGV[1], 'opened', ARGV[2])
redis.call('PEXPIRE', KEYS[1], math.min(idle, max))
redis.call('ZADD', KEYS[2], now, ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - max)
local over = redis.call('ZCARD', KEYS[2]) - perKey
if over > 0 then
  for _, token in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do redis.call('DEL', ARGV[6] .. token) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[2], max)`;

// Refreshes the idle timeout, never past the session's absolute end; answers the key's digest.
const TOUCH_SCRIPT = `
local record = redis.call('HMGET', KEYS[1], 'key', 'opened')
if not record[1] then return false end
local left = tonumber(record[2]) + tonumber(ARGV[3]) - tonumber(ARGV[1])
if left <= 0 then redis.call('DEL', KEYS[1]); return false end
redis.call('PEXPIRE', KEYS[1], math.min(tonumber(ARGV[2]), left))
return record[1]`;

const END_SCRIPT = `
local key = redis.call('HGET', KEYS[1], 'key')
redis.call('DEL', KEYS[1])
if key then redis.call('ZREM', ARGV[1] .. key, ARGV[2]) end
return key and 1 or 0`;

const digestOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class BrowserSessions {
  readonly #redis: Redis;
  readonly #sessionHead: string;
  readonly #indexHead: string;
  readonly #idleMs: number;
  readonly #maxMs: number;
  readonly #perKey: number;

  constructor(options: BrowserSessionsOptions) {
    this.#redis = options.redis;
    const shared = keyspace(options.prefix).shared;
    this.#sessionHead = `${shared}:ui:session:`;
    this.#indexHead = `${shared}:ui:sessions:`;
    this.#idleMs = options.idleMs ?? 2 * 3600_000;
    this.#maxMs = options.maxMs ?? 24 * 3600_000;
    this.#perKey = options.perKey ?? 50;
  }

  /** Opens a session for the key of digest `keyDigest`; answers its token, for the cookie. */
  async open(keyDigest: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const digest = digestOf(token);
    const keys = [this.#sessionHead + digest, this.#indexHead + keyDigest];
    const args = [keyDigest, Date.now(), this.#idleMs, this.#maxMs, this.#perKey, this.#sessionHead, digest];
    await boundedRedisCall(this.#redis, () => this.#redis.eval(OPEN_SCRIPT, keys.length, ...keys, ...args));
    return token;
  }

  /** The digest of the key whose session `token` is, refreshing its idle timeout; undefined when it has ended. */
  async find(token: string | undefined): Promise<string | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const key = this.#sessionHead + digestOf(token);
    const found = await boundedRedisCall(this.#redis, () => this.#redis.eval(TOUCH_SCRIPT, 1, key, Date.now(), this.#idleMs, this.#maxMs));
    return typeof found === 'string' ? found : undefined;
  }

  /** Ends the session of `token` for good; answers whether there was one. */
  async end(token: string | undefined): Promise<boolean> {
    if (!token || !TOKEN.test(token)) return false;
    const ended = await boundedRedisCall(this.#redis, () => this.#redis.eval(END_SCRIPT, 1, this.#sessionHead + digestOf(token), this.#indexHead, digestOf(token)));
    return ended === 1;
  }
}
