/**
 * Fair shares between batches of one key. A job's place in its queue is given when it is added
 * (fair-shares.ts), so a batch added whole would leave its key's next batch behind all of it. A
 * batch's dispatcher therefore asks before each chunk of runs, and adds it only when
 *
 * - its key has less than `ahead` rounds of its share waiting in the pipeline's queues (the key's
 *   last virtual finish less the class's virtual time, the most over the queues: about its waiting
 *   jobs there ÷ its weight), and
 * - no other batch of the key that asked lately has added fewer runs since they both began asking
 *   (a batch that joins starts level with the least of the others, as a late key starts at the
 *   virtual time), so the key's batches add their chunks in turn.
 *
 * Each key's turns are one hash under the deployment's tag (`{sy}:flow:batches:<class>:<key>`:
 * per batch the runs it added and when it last asked), so the script's keys share a slot with the
 * queues' on a cluster. A batch that stops asking (ended, or its dispatcher died) is left out
 * after STALE_MS, and the hash expires when no batch of the key asks.
 */
import type { Redis } from 'ioredis';
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import type { FlowTag } from '../catalog.js';
import { CLASS_SPAN } from './fair-shares.js';

/** A batch that has not asked for this long no longer holds its key's other batches to turns. */
export const STALE_MS = 5_000;

/**
 * KEYS: per queue its prioritized zset and its class state hash, then the key's turns hash.
 * ARGV: class span, class, key, ahead (rounds), batch id, now (ms), stale (ms), runs in the chunk.
 * Answers 'go' (its count raised by the chunk), 'full' (its key is `ahead` rounds ahead) or
 * 'turn' (another batch of the key is behind it).
 */
const ASK_SCRIPT = `
local span = tonumber(ARGV[1])
local base = tonumber(ARGV[2]) * span
local shift = 4294967296
local ahead, batch, now, stale, chunk = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local turns = KEYS[#KEYS]
redis.call('HSET', turns, 't:' .. batch, now)
redis.call('PEXPIRE', turns, stale * 4)
local most = 0
for i = 1, #KEYS - 1, 2 do
  local finish = tonumber(redis.call('HGET', KEYS[i + 1], 'f:' .. ARGV[3]) or '0')
  if finish > 0 then
    local head = redis.call('ZRANGEBYSCORE', KEYS[i], string.format('%.0f', base * shift), '(' .. string.format('%.0f', (base + span) * shift), 'WITHSCORES', 'LIMIT', 0, 1)
    -- Nothing of the class waits in this queue: nothing of the key does either, whatever the
    -- saved virtual times say (a queue drained between two asks must not hold a batch back).
    if head[2] then
      local v = math.max(tonumber(redis.call('HGET', KEYS[i + 1], 'v') or '0'), math.floor(tonumber(head[2]) / shift) - base)
      if finish - v > most then most = finish - v end
    end
  end
end
local least = nil
local fields = redis.call('HGETALL', turns)
for i = 1, #fields, 2 do
  local field = fields[i]
  if string.sub(field, 1, 2) == 'n:' and string.sub(field, 3) ~= batch then
    local other = string.sub(field, 3)
    local asked = tonumber(redis.call('HGET', turns, 't:' .. other) or '0')
    if now - asked <= stale then
      local added = tonumber(fields[i + 1])
      if least == nil or added < least then least = added end
    else
      redis.call('HDEL', turns, field, 't:' .. other)
    end
  end
end
local mine = tonumber(redis.call('HGET', turns, 'n:' .. batch) or '-1')
if mine < 0 then
  mine = least or 0
  redis.call('HSET', turns, 'n:' .. batch, mine)
end
if most >= ahead then return 'full' end
if least ~= nil and mine > least then return 'turn' end
redis.call('HSET', turns, 'n:' .. batch, mine + chunk)
return 'go'
`;

export type BatchTurn = 'go' | 'full' | 'turn';

export class BatchTurns {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ask: ScriptCommand;

  /** @param prefix BullMQ's prefix (`{sy}`), under which the queues' keys and this state live */
  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#ask = scriptCommand(options.redis, 'syBatchTurn', ASK_SCRIPT);
  }

  #turnsKey(flow: Pick<FlowTag, 'priority' | 'key'>): string {
    return `${this.#prefix}:flow:batches:${flow.priority}:${flow.key}`;
  }

  /** Whether `batch` may add its next `chunk` runs of key `flow` to `queues` now (and if so, counts them). */
  async ask(options: { queues: readonly string[]; flow: Pick<FlowTag, 'priority' | 'key'>; batch: string; ahead: number; chunk: number }): Promise<BatchTurn> {
    const { flow } = options;
    const keys = options.queues.flatMap((queue) => [`${this.#prefix}:${queue}:prioritized`, `${this.#prefix}:flow:${queue}:fair:${flow.priority}`]);
    keys.push(this.#turnsKey(flow));
    return (await this.#ask(keys.length, ...keys, CLASS_SPAN, flow.priority, flow.key, options.ahead, options.batch, Date.now(), STALE_MS, options.chunk)) as BatchTurn;
  }

  /** A batch with nothing left to add stops holding its key's other batches to turns. */
  async done(flow: Pick<FlowTag, 'priority' | 'key'>, batch: string): Promise<void> {
    await this.#redis.hdel(this.#turnsKey(flow), `n:${batch}`, `t:${batch}`);
  }
}
