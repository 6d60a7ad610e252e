/**
 * Fair shares between callers, as BullMQ priorities: start-time fair queueing. Each queue keeps,
 * per priority class, a virtual time and each key's last virtual finish. A key's next job starts
 * at max(its last finish, the virtual time) and finishes 1/weight later; its BullMQ priority is
 * its class's base plus that start. BullMQ serves the lowest priority first (first in first out
 * among equals), so two keys with work waiting alternate however much each has queued, and a key
 * that comes late starts at the virtual time, not behind the others' backlog.
 *
 * The virtual time is read from the queue itself: the start of the job of the class waiting at
 * its head (BullMQ scores a prioritized job `priority * 2^32 + counter`). When nothing of the
 * class waits, every start given has been served, so the time is the highest start given. Starts
 * live in a class's span of BullMQ's priorities (CLASS_SPAN): a class's state is dropped when
 * nothing of it waits and its starts have passed half the span, and a start past the span is held
 * at its end (first in first out there, until the class drains). An idle class's state is also
 * dropped once it holds MAX_IDLE_KEYS keys.
 *
 * All BullMQ queues of a deployment share its hash tag (`{sy}`), so one script places every job
 * added in a turn, on one Redis or a cluster.
 */
import type { Redis } from 'ioredis';
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import { PRIORITY_BATCH, type FlowTag } from '../catalog.js';

/** BullMQ's priorities of one class: class c takes [c·SPAN, (c+1)·SPAN). 9 classes fit under BullMQ's 2^21. */
export const CLASS_SPAN = 200_000;

/**
 * Keys a class's state keeps once nothing of it waits: past this, it is dropped then, so that keys
 * met once (a hostile stream of distinct `fairness.key` values) do not pile up.
 */
export const MAX_IDLE_KEYS = 1000;

/** The flow of a job added before flow control: served as a batch's, under one key of its own. */
export const UNTAGGED_FLOW: FlowTag = { priority: PRIORITY_BATCH, key: '-' };

/** The class a BullMQ priority belongs to, and the virtual start within it. */
export function classOfPriority(priority: number): { priority: number; start: number } {
  return { priority: Math.floor(priority / CLASS_SPAN), start: priority % CLASS_SPAN };
}

/**
 * KEYS: per (queue, class) pair, the queue's prioritized zset then the pair's state hash.
 * ARGV: class span, reset mark, job count, then per job: pair number (1-based), class, key, weight;
 * last, the most keys an idle class's state keeps (MAX_IDLE_KEYS).
 * Answers each job's BullMQ priority.
 */
export const FAIR_PRIORITIES_SCRIPT = `
local span = tonumber(ARGV[1])
local reset_mark = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local max_keys = tonumber(ARGV[4 + count * 4])
local shift = 4294967296
local now, highest, finishes = {}, {}, {}
local answers = {}
for i = 0, count - 1 do
  local pair = tonumber(ARGV[4 + i * 4])
  local base = tonumber(ARGV[5 + i * 4]) * span
  local key = ARGV[6 + i * 4]
  local weight = tonumber(ARGV[7 + i * 4])
  local state = KEYS[pair * 2]
  if now[pair] == nil then
    local head = redis.call('ZRANGEBYSCORE', KEYS[pair * 2 - 1], string.format('%.0f', base * shift), '(' .. string.format('%.0f', (base + span) * shift), 'WITHSCORES', 'LIMIT', 0, 1)
    local saved = redis.call('HMGET', state, 'v', 'm')
    local v, m = tonumber(saved[1] or '0'), tonumber(saved[2] or '0')
    if head[2] then
      v = math.max(v, math.floor(tonumber(head[2]) / shift) - base)
    elseif m > reset_mark or redis.call('HLEN', state) > max_keys then
      redis.call('DEL', state)
      v, m = 0, 0
    else
      v = m
    end
    now[pair], highest[pair], finishes[pair] = v, m, {}
  end
  local finish = finishes[pair][key]
  if finish == nil then finish = tonumber(redis.call('HGET', state, 'f:' .. key) or '0') end
  local start = math.max(finish, now[pair])
  finishes[pair][key] = start + 1 / weight
  if start > highest[pair] then highest[pair] = start end
  answers[#answers + 1] = base + math.min(span - 1, math.floor(start))
end
for pair, keys in pairs(finishes) do
  local fields = {'v', now[pair], 'm', highest[pair]}
  for key, finish in pairs(keys) do
    fields[#fields + 1] = 'f:' .. key
    fields[#fields + 1] = finish
    if #fields >= 1000 then
      redis.call('HSET', KEYS[pair * 2], unpack(fields))
      fields = {'v', now[pair]}
    end
  end
  redis.call('HSET', KEYS[pair * 2], unpack(fields))
end
return answers
`;

/** A job to place: its queue and its run's flow. */
export interface FairJob {
  queue: string;
  flow: FlowTag | undefined;
}

/**
 * Gives jobs their BullMQ priorities, one script for all the jobs of a call.
 * @param prefix BullMQ's prefix (`{sy}`), under which the queues' keys and this state live
 */
export class FairShares {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #fairPriorities: ScriptCommand;

  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#fairPriorities = scriptCommand(options.redis, 'syFairPriorities', FAIR_PRIORITIES_SCRIPT);
  }

  /** The state of one class of one queue (its keys' finishes, its virtual time). */
  stateKey(queue: string, priority: number): string {
    return `${this.#prefix}:flow:${queue}:fair:${priority}`;
  }

  /** Where a waiting job stands in its queue: the jobs ahead of it, and of those the ones of a higher class; null when it is not waiting there. */
  async placeOf(queue: string, id: string): Promise<{ ahead: number; aheadHigherPriority: number } | null> {
    const key = `${this.#prefix}:${queue}:prioritized`;
    const score = await this.#redis.zscore(key, id);
    if (score === null) return null;
    const base = Math.floor(Number(score) / 2 ** 32 / CLASS_SPAN) * CLASS_SPAN * 2 ** 32;
    const [ahead, higher] = await Promise.all([this.#redis.zcount(key, '-inf', `(${score}`), this.#redis.zcount(key, '-inf', `(${base}`)]);
    return { ahead, aheadHigherPriority: higher };
  }

  /** Each job's BullMQ priority, in the order given. */
  async priorities(jobs: readonly FairJob[]): Promise<number[]> {
    if (jobs.length === 0) return [];
    const pairs = new Map<string, number>();
    const keys: string[] = [];
    const args: (string | number)[] = [CLASS_SPAN, CLASS_SPAN / 2, jobs.length];
    for (const job of jobs) {
      const flow = job.flow ?? UNTAGGED_FLOW;
      const pairName = `${job.queue}\n${flow.priority}`;
      let pair = pairs.get(pairName);
      if (pair === undefined) {
        pairs.set(pairName, (pair = pairs.size + 1));
        keys.push(`${this.#prefix}:${job.queue}:prioritized`, this.stateKey(job.queue, flow.priority));
      }
      args.push(pair, flow.priority, flow.key, flow.weight ?? 1);
    }
    args.push(MAX_IDLE_KEYS);
    const answer = (await this.#fairPriorities(keys.length, ...keys, ...args)) as number[];
    return answer.map(Number);
  }
}
