/**
 * Following Redis streams (runs' and batches' events) for every client of one process: the MCP
 * bridge's subscriptions and session logs, the orchestrator's SSE streams. Each follower is
 * registered on its own, but they share one blocking reader connection, multiplexed with XREAD
 * over every stream followed: a connection per follower would cost a socket (and a Redis client,
 * up to the server's `maxclients`) for each of them. A new follower wakes the blocked read at once
 * (CLIENT UNBLOCK), so it misses nothing and waits for nobody.
 *
 * On a Redis Cluster one XREAD cannot span streams of different slots (each run's are in its own),
 * and a blocked read on one node could not be woken from another: there the hub polls instead,
 * every stream followed in one pipeline per master each `pollMs`, and a new follower ends the wait.
 */
import type { Redis } from 'ioredis';
import { isCluster, KeyedPipeline } from '@switchyard/redis';
import { toStreamEvents, type StreamEvent } from './events.js';
import { compareStreamIds } from './run-archive.js';

export type StreamListener = (events: StreamEvent[]) => void;

/** Told when the hub could not read for a follower: its reader lost its connection, or a read failed. */
export type StreamFailureListener = (error: Error) => void;

export interface StreamHubOptions {
  /** The connection to copy: reads block, so the hub reads on a duplicate of its own; wake-ups go on this one. */
  redis: Redis;
  /** Longest single blocking read in ms (default 5000): how long an idle reader takes to notice the hub closing. */
  blockMs?: number;
  /** Streams per XREAD (default 256); more are read in turns, each blocking briefly. */
  streamsPerRead?: number;
  /** Told when a read fails (default: ignored); the hub tries again after `retryMs`. */
  onError?: (error: unknown) => void;
  /** Pause after a failed read, ms (default 500). */
  retryMs?: number;
  /** On a Redis Cluster: pause between polls that found nothing new, ms (default 200). */
  pollMs?: number;
}

interface Follower {
  after: string;
  listener: StreamListener;
  onFailure: StreamFailureListener | undefined;
}

/** An XREAD reply's entries of one stream as events (nothing when the reply holds none). */
function toEvents(entries: unknown): StreamEvent[] {
  return Array.isArray(entries) ? toStreamEvents(entries as [string, string[]][]) : [];
}

export class StreamHub {
  readonly #options: StreamHubOptions;
  readonly #followers = new Map<string, Set<Follower>>();
  #reader: Redis | undefined;
  #readerId: number | undefined;
  #running = false;
  #blocked = false;
  /** Reads issued so far: tells a wake-up whether the read it meant to end is still the current one. */
  #reads = 0;
  #closed = false;
  readonly #cluster: boolean;
  /** On a cluster: ends the pause between polls. */
  #endNap: (() => void) | undefined;

  constructor(options: StreamHubOptions) {
    this.#options = options;
    this.#cluster = isCluster(options.redis);
  }

  /** Streams followed now. */
  get size(): number {
    return this.#followers.size;
  }

  /**
   * Calls `listener` with the events of stream `key` that come after `after` ("0" for all),
   * in order, as they are appended. Answers the function that stops it. `onFailure` is told each
   * time a read fails or the reader loses its connection (the hub keeps trying meanwhile): a
   * follower that must not wait silently through an outage stops there.
   */
  follow(key: string, after: string, listener: StreamListener, onFailure?: StreamFailureListener): () => void {
    if (this.#closed) return () => undefined;
    const follower: Follower = { after, listener, onFailure };
    let followers = this.#followers.get(key);
    if (!followers) this.#followers.set(key, (followers = new Set()));
    followers.add(follower);
    this.#wake();
    if (!this.#running) void this.#loop();
    return () => {
      const current = this.#followers.get(key);
      if (!current?.delete(follower) || current.size > 0) return;
      this.#followers.delete(key);
      // The last one gone: let the reader stop instead of blocking on streams nobody follows.
      if (this.#followers.size === 0) this.#wake();
    };
  }

  /**
   * Resolves once the hub can read now: its reader is connected (on a cluster, the connection it
   * polls on). Rejects after `timeoutMs` (default 1000) otherwise, e.g. while Redis refuses new
   * clients (`maxclients`) or is away: a caller about to promise a stream asks this first.
   */
  async ready(timeoutMs = 1000): Promise<void> {
    if (this.#closed) throw new Error('the stream hub is closed');
    const connection = this.#cluster ? this.#options.redis : this.#connection();
    if (connection.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        connection.off('ready', onReady);
      };
      const onReady = () => {
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the event reader cannot reach Redis (connection ${connection.status})`));
      }, timeoutMs);
      connection.on('ready', onReady);
    });
  }

  close(): void {
    this.#closed = true;
    this.#followers.clear();
    this.#reader?.disconnect();
  }

  #wake(): void {
    this.#endNap?.();
    if (this.#blocked) void this.#unblock(this.#reads).catch(() => undefined);
  }

  /**
   * Ends read number `read` if it is still blocked. The XREAD may not have reached Redis yet
   * when the wake-up does (two connections), so an UNBLOCK that found nothing is tried again.
   */
  async #unblock(read: number): Promise<void> {
    for (let attempt = 0; attempt < 20 && this.#blocked && this.#reads === read; attempt += 1) {
      if (this.#readerId !== undefined && Number(await this.#options.redis.client('UNBLOCK', this.#readerId)) === 1) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  #connection(): Redis {
    if (this.#reader) return this.#reader;
    const reader = this.#options.redis.duplicate();
    // A failure shows in the pending read; the connection's own error events would be noise.
    reader.on('error', () => undefined);
    reader.on('reconnecting', () => {
      this.#readerId = undefined;
      this.#fail(new Error('the event reader lost its connection to Redis'));
    });
    this.#reader = reader;
    return reader;
  }

  async #loop(): Promise<void> {
    this.#running = true;
    const perRead = this.#options.streamsPerRead ?? 256;
    try {
      while (!this.#closed && this.#followers.size > 0) {
        const keys = [...this.#followers.keys()];
        if (this.#cluster) {
          await this.#poll(keys);
          continue;
        }
        const turns = Math.ceil(keys.length / perRead);
        for (let turn = 0; turn < turns && !this.#closed; turn += 1) {
          await this.#read(keys.slice(turn * perRead, (turn + 1) * perRead), turns === 1 ? (this.#options.blockMs ?? 5000) : 20);
        }
      }
    } finally {
      this.#running = false;
    }
    // A follower added just as the loop ended starts it again.
    if (!this.#closed && this.#followers.size > 0) void this.#loop();
  }

  async #read(keys: string[], blockMs: number): Promise<void> {
    const afters = keys.map((key) => this.#earliest(key));
    const reader = this.#connection();
    let reply: unknown;
    try {
      this.#readerId ??= Number(await reader.client('ID'));
      this.#reads += 1;
      this.#blocked = true;
      reply = await reader.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', ...keys, ...afters);
    } catch (error) {
      if (this.#closed) return;
      this.#options.onError?.(error);
      this.#fail(error);
      await new Promise((resolve) => setTimeout(resolve, this.#options.retryMs ?? 500));
      return;
    } finally {
      this.#blocked = false;
    }
    if (!Array.isArray(reply)) return; // timed out, or woken
    for (const [key, entries] of reply as [string, unknown][]) this.#dispatch(key, toEvents(entries));
  }

  /** One look at every stream (cluster): a non-blocking XREAD each, grouped per master; a pause when nothing came. */
  async #poll(keys: string[]): Promise<void> {
    const pipeline = new KeyedPipeline(this.#options.redis);
    for (const key of keys) pipeline.on(key).xread('COUNT', 500, 'STREAMS', key, this.#earliest(key));
    let found = false;
    try {
      const replies = await pipeline.exec();
      for (const [error, reply] of replies) {
        if (error) throw error;
        if (!Array.isArray(reply)) continue;
        for (const [key, entries] of reply as [string, unknown][]) {
          found = true;
          this.#dispatch(key, toEvents(entries));
        }
      }
    } catch (error) {
      if (this.#closed) return;
      this.#options.onError?.(error);
      this.#fail(error);
    }
    if (found || this.#closed) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#options.pollMs ?? 200);
      this.#endNap = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#endNap = undefined;
  }

  #earliest(key: string): string {
    let earliest: string | undefined;
    for (const follower of this.#followers.get(key) ?? []) {
      if (earliest === undefined || compareStreamIds(follower.after, earliest) < 0) earliest = follower.after;
    }
    return earliest ?? '$';
  }

  #fail(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    for (const followers of [...this.#followers.values()]) {
      for (const follower of [...followers]) {
        try {
          follower.onFailure?.(failure);
        } catch (thrown) {
          this.#options.onError?.(thrown);
        }
      }
    }
  }

  #dispatch(key: string, events: StreamEvent[]): void {
    for (const follower of [...(this.#followers.get(key) ?? [])]) {
      const fresh = events.filter((event) => compareStreamIds(event.id, follower.after) > 0);
      const last = fresh.at(-1);
      if (!last) continue;
      follower.after = last.id;
      try {
        follower.listener(fresh);
      } catch (error) {
        this.#options.onError?.(error);
      }
    }
  }
}
