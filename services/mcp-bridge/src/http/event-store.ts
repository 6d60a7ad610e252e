/**
 * The SDK's EventStore in Redis: one Redis stream per MCP stream of a session, so that a client
 * can replay what it missed (Last-Event-ID) from any bridge replica, or from a restarted bridge.
 * An event id is `{streamId}.{redis entry id}`: it names its stream, and only within the session
 * that wrote it.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import type { SessionKeys } from './keys.js';

const EVENT_ID = /^([\w-]{1,64})\.(\d+-\d+)$/;

export interface StoredEvent {
  eventId: string;
  entryId: string;
  message: JSONRPCMessage;
}

export interface RedisEventStoreOptions {
  redis: Redis;
  keys: SessionKeys;
  /** Seconds a stream stays replayable after its last event (default 3600). */
  ttlSeconds?: number;
  /** Events kept per stream, roughly (default 2000). */
  maxEvents?: number;
}

export function parseEventId(eventId: string): { streamId: string; entryId: string } | undefined {
  const match = EVENT_ID.exec(eventId);
  return match ? { streamId: match[1] as string, entryId: match[2] as string } : undefined;
}

export class RedisEventStore implements EventStore {
  readonly #redis: Redis;
  readonly #keys: SessionKeys;
  readonly #ttl: number;
  readonly #maxEvents: string;
  #muted = false;

  constructor(options: RedisEventStoreOptions) {
    this.#redis = options.redis;
    this.#keys = options.keys;
    this.#ttl = options.ttlSeconds ?? 3600;
    this.#maxEvents = String(options.maxEvents ?? 2000);
  }

  /** While muted nothing is written: used while a restored session replays its handshake. */
  mute(muted: boolean): void {
    this.#muted = muted;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.#muted) return `${streamId}.0-1`;
    const key = this.#keys.stream(streamId);
    const replies = await this.#redis.multi().xadd(key, 'MAXLEN', '~', this.#maxEvents, '*', 'message', JSON.stringify(message)).expire(key, this.#ttl).exec();
    const [error, entryId] = replies?.[0] ?? [new Error('no reply')];
    if (error) throw error;
    return `${streamId}.${String(entryId)}`;
  }

  /** The stream an event id names, when it is well formed and its stream still exists. */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    return (await this.#redis.exists(this.#keys.stream(parsed.streamId))) === 1 ? parsed.streamId : undefined;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) throw new Error(`Not an event id of this bridge: ${lastEventId}`);
    for (const event of await this.eventsAfter(parsed.streamId, parsed.entryId)) await send(event.eventId, event.message);
    return parsed.streamId;
  }

  /** A stream's events after an entry id ("0" for all), priming events left out. */
  async eventsAfter(streamId: string, entryId: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    let from = entryId === '0' ? '-' : `(${entryId}`;
    for (;;) {
      const entries = await this.#redis.xrange(this.#keys.stream(streamId), from, '+', 'COUNT', 500);
      for (const [id, fields] of entries) {
        const message = decode(fields);
        if (message) events.push({ eventId: `${streamId}.${id}`, entryId: id, message });
      }
      const last = entries.at(-1);
      if (!last || entries.length < 500) return events;
      from = `(${last[0]}`;
    }
  }
}

/** The message of a stream entry; undefined for a priming event (an empty message). */
export function decode(fields: string[]): JSONRPCMessage | undefined {
  const index = fields.indexOf('message');
  const raw = index >= 0 ? fields[index + 1] : undefined;
  if (!raw) return undefined;
  const message = JSON.parse(raw) as Partial<JSONRPCMessage>;
  return 'jsonrpc' in message ? (message as JSONRPCMessage) : undefined;
}
