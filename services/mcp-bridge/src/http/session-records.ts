/**
 * Sessions as Redis keeps them, so that any bridge replica, or a restarted one, can take up a
 * session it did not open: the client's initialize params (replayed into a fresh transport and
 * server), the digest of the API key that opened it (a session answers only to that key), and the
 * suites' state. Every request refreshes the idle timeout.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { SessionState } from '@switchyard/tool-suite';
import { sessionKeys, type SessionKeys } from './keys.js';

export interface SessionRecord {
  initialize: Record<string, unknown>;
  keyDigest: string;
  createdAt: string;
}

export const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export class SessionRecords {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttl: number;

  /** @param options.ttlSeconds idle seconds before a session is forgotten (default one day) */
  constructor(options: { redis: Redis; prefix: string; ttlSeconds?: number }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#ttl = options.ttlSeconds ?? 24 * 3600;
  }

  keys(sessionId: string): SessionKeys {
    return sessionKeys(this.#prefix, sessionId);
  }

  async create(sessionId: string, record: SessionRecord): Promise<void> {
    const { record: key } = this.keys(sessionId);
    await this.#redis
      .multi()
      .hset(key, { initialize: JSON.stringify(record.initialize), key_digest: record.keyDigest, created_at: record.createdAt })
      .expire(key, this.#ttl)
      .exec();
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    const hash = await this.#redis.hgetall(this.keys(sessionId).record);
    if (!hash.initialize || !hash.key_digest) return null;
    return { initialize: JSON.parse(hash.initialize) as Record<string, unknown>, keyDigest: hash.key_digest, createdAt: hash.created_at ?? '' };
  }

  /** Pushes the idle timeout back; answers whether the session still exists. */
  async touch(sessionId: string): Promise<boolean> {
    const keys = this.keys(sessionId);
    const [[, alive]] = (await this.#redis.multi().expire(keys.record, this.#ttl).expire(keys.state, this.#ttl).exec()) as [[null, number], [null, number]];
    return alive === 1;
  }

  /** Forgets the session; its streams lapse with their own timeout. */
  async remove(sessionId: string): Promise<void> {
    const keys = this.keys(sessionId);
    await this.#redis.del(keys.record, keys.state);
  }

  /** The suites' state of a session, in Redis so that it survives the process. */
  state(sessionId: string): SessionState {
    const key = this.keys(sessionId).state;
    const redis = this.#redis;
    const ttl = this.#ttl;
    return {
      async get<T>(field: string) {
        const raw = await redis.hget(key, field);
        return raw === null ? undefined : (JSON.parse(raw) as T);
      },
      async set(field, value) {
        await redis.multi().hset(key, field, JSON.stringify(value)).expire(key, ttl).exec();
      },
      async delete(field) {
        await redis.hdel(key, field);
      },
    };
  }
}
