/**
 * Run events appended in batches: every append made in one turn of the event loop, for any run,
 * goes to Redis as one script call. A worker streaming hundreds of stages appends thousands of
 * `content` events a second; one call each cost a script's text on the wire, a write and a
 * script run per event, in the worker and in Redis alike.
 *
 * Each append is applied at most once: the run keeps the highest sequence number applied per
 * writer (`ev.<writer>`), so a call resent after a reconnect changes nothing. That check would
 * also refuse, as applied, appends that were overtaken by later ones, so a call must never be
 * overtaken. The script goes by SHA after its first call on a socket (scriptCommand); a
 * restarted Redis is a new socket, which ioredis tells the text first and then sends the
 * unanswered calls again, in order. But a script the server forgot under a live connection
 * (SCRIPT FLUSH) fails the calls in flight (NOSCRIPT) and ioredis sends each again by itself,
 * after whatever was sent meanwhile, or after a call another connection loaded the script with.
 * So one call at a time is in flight per lane (the one Redis, or a cluster's run slot): what
 * is appended meanwhile waits, and goes in the next call.
 */
import type { Redis } from 'ioredis';
import { keySlot, scriptCommand, type ScriptCommand } from '@switchyard/redis';
import { TurnBatch } from './turn-batch.js';

/**
 * KEYS: per append the run and its events. ARGV: maxlen, writer, then per append its sequence
 * number, type and data. Answers per append the event id, or nil when the run is gone or the
 * append was applied before.
 */
export const APPEND_EVENTS_SCRIPT = `
local maxlen, field = ARGV[1], 'ev.' .. ARGV[2]
local replies = {}
for i = 1, #KEYS / 2 do
  local run, events, at = KEYS[2 * i - 1], KEYS[2 * i], 3 * i
  local reply = false
  if redis.call('EXISTS', run) == 1 then
    local seq = tonumber(ARGV[at])
    if seq > (tonumber(redis.call('HGET', run, field)) or 0) then
      redis.call('HSET', run, field, seq)
      reply = redis.call('XADD', events, 'MAXLEN', '~', maxlen, '*', 'type', ARGV[at + 1], 'data', ARGV[at + 2])
    end
  end
  replies[i] = reply
end
return replies
`;

/** The script's command name on a connection (see scriptCommand). */
export const APPEND_EVENTS_COMMAND = 'syAppendEvents';

export interface EventAppend {
  run: string;
  events: string;
  seq: number;
  type: string;
  /** The event's data, as JSON. */
  data: string;
}

interface Queued {
  append: EventAppend;
  resolve(id: string | null): void;
  reject(error: Error): void;
}

export interface EventAppendsOptions {
  redis: Redis;
  /** This writer's name in the run's `ev.<writer>` field. */
  writer: string;
  /** Stream length cap of each XADD. */
  maxlen: string;
  /** Appends per script call at most (default 200), so that one call never holds Redis long. */
  maxPerCall?: number;
  /** On a Redis Cluster a call takes the appends of one run slot only (default false). */
  cluster?: boolean;
}

/** The appends of one lane not sent yet, and whether a call of the lane is in flight. */
interface Lane {
  slot: number;
  waiting: Queued[];
  busy: boolean;
}

export class EventAppends {
  readonly #options: Required<EventAppendsOptions>;
  readonly #append: ScriptCommand;
  readonly #lanes = new Map<number, Lane>();
  readonly #turn = new TurnBatch<Queued>((queued) => {
    const touched = new Set<Lane>();
    for (const item of queued) {
      const slot = this.#options.cluster ? keySlot(item.append.run) : 0;
      let lane = this.#lanes.get(slot);
      if (!lane) this.#lanes.set(slot, (lane = { slot, waiting: [], busy: false }));
      lane.waiting.push(item);
      touched.add(lane);
    }
    for (const lane of touched) if (!lane.busy) this.#next(lane);
  });

  constructor(options: EventAppendsOptions) {
    this.#options = { maxPerCall: 200, cluster: false, ...options };
    this.#append = scriptCommand(options.redis, APPEND_EVENTS_COMMAND, APPEND_EVENTS_SCRIPT);
  }

  /** Resolves with the event's id, or null when its run is gone or it was applied already. */
  submit(append: EventAppend): Promise<string | null> {
    return new Promise<string | null>((resolve, reject) => this.#turn.push({ append, resolve, reject }));
  }

  /** Sends the lane's next call, once its call in flight is answered; a lane with nothing waiting is dropped. */
  #next(lane: Lane): void {
    if (lane.waiting.length === 0) {
      lane.busy = false;
      this.#lanes.delete(lane.slot);
      return;
    }
    lane.busy = true;
    void this.#send(lane.waiting.splice(0, this.#options.maxPerCall)).then(() => this.#next(lane));
  }

  /** Settles every append of `batch`; never rejects. */
  async #send(batch: Queued[]): Promise<void> {
    const keys = batch.flatMap(({ append }) => [append.run, append.events]);
    const args = batch.flatMap(({ append }) => [String(append.seq), append.type, append.data]);
    try {
      const replies = await this.#append(keys.length, ...keys, this.#options.maxlen, this.#options.writer, ...args);
      batch.forEach((queued, i) => queued.resolve(Array.isArray(replies) && typeof replies[i] === 'string' ? replies[i] : null));
    } catch (error) {
      batch.forEach((queued) => queued.reject(error instanceof Error ? error : new Error(String(error))));
    }
  }
}
