/**
 * Concurrency keys: at most `limit` holders of a gate (a scope and a key value) at once; the rest
 * wait in line, in the order they first asked, holding no worker slot. A gate is three keys in a
 * slot of its own (`{sy:gate:<digest of scope and value>}`), changed only by the scripts here:
 *
 *   …:holders  zset, member → when it was let through (ms)
 *   …:waiting  zset, member → its place in line (the order it first asked, `#seq` of …:jobs)
 *   …:jobs     hash, member → the queue and id of the job to wake when its turn comes
 *
 * Jobs ask in the order their queue serves them (a key's jobs first in, first out), so a key
 * value's runs are let through in the order they were started.
 *
 * A member is let through when fewer than `limit` hold the gate and no more than the free places
 * wait ahead of it. Whoever ends a holder releases it and wakes the jobs now first in line (their
 * delayed job promoted). Nothing depends on that wake-up or on the release being done: a waiting
 * job looks again on its own every GATE_RECHECK_MS, and a member that finds the gate full looks
 * whether its holders and those ahead of it are still live (`isLive`, their runs' records),
 * releasing those that are not. So a process dying between any two round trips (after letting a
 * member through, before its job starts; after a run ends, before it is released) delays the line
 * by at most a recheck, and never loses a place or a slot for good.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keyspace, scriptCommand, type ScriptCommand } from '@switchyard/redis';
import type { GateTag } from '../catalog.js';

/** How often a waiting job looks at its gate again by itself (ms): the bound on a lost wake-up. */
export const GATE_RECHECK_MS = 5_000;

/**
 * KEYS: holders, waiting, jobs. ARGV: member, (unused), limit, its job ("queue\nid"),
 * now (ms), '1' to wait in line when not let through (else it is refused and not kept).
 * Answers {1, 0, holders} when let through, {0, rank in line, holders} when not.
 */
const ACQUIRE_SCRIPT = `
local member = ARGV[1]
if redis.call('ZSCORE', KEYS[1], member) then return {1, 0, redis.call('ZCARD', KEYS[1])} end
local held = redis.call('ZCARD', KEYS[1])
local free = tonumber(ARGV[3]) - held
if ARGV[6] ~= '1' then
  if free > 0 and redis.call('ZCARD', KEYS[2]) < free then
    redis.call('ZADD', KEYS[1], ARGV[5], member)
    return {1, 0, held + 1}
  end
  return {0, redis.call('ZCARD', KEYS[2]), held}
end
if not redis.call('ZSCORE', KEYS[2], member) then
  redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], '#seq', 1), member)
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], member, ARGV[4]) end
local rank = redis.call('ZRANK', KEYS[2], member)
if free > 0 and rank < free then
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[3], member)
  redis.call('ZADD', KEYS[1], ARGV[5], member)
  return {1, 0, held + 1}
end
return {0, rank, held}
`;

/**
 * KEYS: holders, waiting, jobs. ARGV: limit, then the members to drop (holders or waiting).
 * Answers the jobs of the members now first in line for the free places.
 */
const RELEASE_SCRIPT = `
for i = 2, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HDEL', KEYS[3], ARGV[i])
end
local held = redis.call('ZCARD', KEYS[1])
-- An idle gate keeps nothing (its line's count starts again).
if held == 0 and redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[3]) end
local free = tonumber(ARGV[1]) - held
if free <= 0 then return {} end
local jobs = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, free - 1)) do
  local job = redis.call('HGET', KEYS[3], member)
  if job then jobs[#jobs + 1] = job end
end
return jobs
`;

export interface GateKeys {
  holders: string;
  waiting: string;
  jobs: string;
}

export type Admission = { admitted: true; holders: number } | { admitted: false; ahead: number; holders: number };

/** A job to wake: its queue and id. */
export interface GateJobRef {
  queue: string;
  id: string;
}

export class ConcurrencyGates {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #acquire: ScriptCommand;
  readonly #release: ScriptCommand;

  /** @param prefix the deployment's (`sy` or `{sy}`) */
  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#acquire = scriptCommand(options.redis, 'syGateAcquire', ACQUIRE_SCRIPT, { numberOfKeys: 3 });
    this.#release = scriptCommand(options.redis, 'syGateRelease', RELEASE_SCRIPT, { numberOfKeys: 3 });
  }

  /** The keys of a gate: one slot per scope and value, whatever the value's length. */
  keysOf(gate: Pick<GateTag, 'scope' | 'value'>): GateKeys {
    const digest = createHash('sha256').update(`${gate.scope}\n${gate.value}`).digest('hex').slice(0, 24);
    const base = keyspace(this.#prefix).own('gate', digest);
    return { holders: `${base}:holders`, waiting: `${base}:waiting`, jobs: `${base}:jobs` };
  }

  /**
   * Lets `member` through, or puts it at the end of the line (a member already in line keeps
   * its place). With `wait: false` a member not let through is refused and not kept (a limit that
   * refuses rather than queues, e.g. live runs per API key).
   */
  async acquire(gate: GateTag, member: string, options: { job?: GateJobRef; wait?: boolean } = {}): Promise<Admission> {
    const keys = this.keysOf(gate);
    const job = options.job ? `${options.job.queue}\n${options.job.id}` : '';
    const [admitted, ahead, holders] = (await this.#acquire(keys.holders, keys.waiting, keys.jobs, member, 0, gate.limit, job, Date.now(), options.wait === false ? '0' : '1')) as [number, number, number];
    return admitted === 1 ? { admitted: true, holders } : { admitted: false, ahead, holders };
  }

  /** Drops `members` (holders that ended, or waiting ones that will never start); answers the jobs now first in line, to wake. */
  async release(gate: GateTag, members: readonly string[]): Promise<GateJobRef[]> {
    const keys = this.keysOf(gate);
    const jobs = (await this.#release(keys.holders, keys.waiting, keys.jobs, gate.limit, ...members)) as string[];
    return jobs.flatMap((text) => {
      const [queue, id] = text.split('\n');
      return queue && id ? [{ queue, id }] : [];
    });
  }

  /** The members holding the gate, and the first `limit` in line. */
  async look(gate: GateTag): Promise<{ holders: string[]; waiting: string[] }> {
    const keys = this.keysOf(gate);
    const [holders, waiting] = await Promise.all([this.#redis.zrange(keys.holders, 0, -1), this.#redis.zrange(keys.waiting, 0, gate.limit - 1)]);
    return { holders, waiting };
  }

  /** Where `member` stands: holding, in line with so many ahead, or neither. */
  async standing(gate: GateTag, member: string): Promise<{ holding: boolean; ahead: number | null; holders: number }> {
    const keys = this.keysOf(gate);
    const [held, rank, holders] = await Promise.all([this.#redis.zscore(keys.holders, member), this.#redis.zrank(keys.waiting, member), this.#redis.zcard(keys.holders)]);
    return { holding: held !== null, ahead: rank, holders };
  }

  /**
   * Releases the holders, and drops those in line ahead, whose runs are no longer live
   * (`isLive` answers for each member): what a crash between a run's end and its release left.
   * Answers the jobs to wake.
   */
  async sweep(gate: GateTag, isLive: (members: string[]) => Promise<boolean[]>): Promise<GateJobRef[]> {
    const { holders, waiting } = await this.look(gate);
    const members = [...holders, ...waiting];
    if (members.length === 0) return [];
    const live = await isLive(members);
    const dead = members.filter((_, i) => live[i] === false);
    return dead.length > 0 ? this.release(gate, dead) : [];
  }
}
