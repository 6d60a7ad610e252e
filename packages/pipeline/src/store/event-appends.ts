/**
 * Run events appended in batches: every append made in one turn of the event loop, for any run,
 * goes to Redis as one script call. A worker streaming hundreds of stages appends thousands of
 * `content` events a second; one call each cost a script's text on the wire, a write and a
 * script run per event, in the worker and in Redis alike.
 *
 * Sent by SHA after the script's first call on a socket (scriptCommand). A restart or a failover
 * is a new socket, on which ioredis sends the text first and the unanswered calls again in their
 * order. Only a SCRIPT FLUSH under a live connection makes calls in flight fail (NOSCRIPT) and be
 * sent again behind later ones, whose higher sequence numbers then make the check refuse them.
 * Each append is applied at most once: the run keeps the highest sequence number applied
 * per writer (`ev.<writer>`), so a call resent after a reconnect changes nothing.
 */
import type { Redis } from 'ioredis';
import { scriptCommand, type ScriptCommand } from '@switchyard/redis';
import { callGroups } from './call-groups.js';
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

export class EventAppends {
  readonly #options: Required<EventAppendsOptions>;
  readonly #append: ScriptCommand;
  readonly #turn = new TurnBatch<Queued>((queued) => {
    for (const batch of callGroups(queued, { ...this.#options, keyOf: (item) => item.append.run })) this.#send(batch);
  });

  constructor(options: EventAppendsOptions) {
    this.#options = { maxPerCall: 200, cluster: false, ...options };
    this.#append = scriptCommand(options.redis, 'syAppendEvents', APPEND_EVENTS_SCRIPT);
  }

  /** Resolves with the event's id, or null when its run is gone or it was applied already. */
  submit(append: EventAppend): Promise<string | null> {
    return new Promise<string | null>((resolve, reject) => this.#turn.push({ append, resolve, reject }));
  }

  #send(batch: Queued[]): void {
    const keys = batch.flatMap(({ append }) => [append.run, append.events]);
    const args = batch.flatMap(({ append }) => [String(append.seq), append.type, append.data]);
    let pending: Promise<unknown>;
    try {
      pending = this.#append(keys.length, ...keys, this.#options.maxlen, this.#options.writer, ...args);
    } catch (error) {
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.then(
      (replies) => batch.forEach((queued, i) => queued.resolve(Array.isArray(replies) && typeof replies[i] === 'string' ? replies[i] : null)),
      (error: unknown) => batch.forEach((queued) => queued.reject(error instanceof Error ? error : new Error(String(error)))),
    );
  }
}
