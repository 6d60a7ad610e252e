/**
 * Server-Sent Events from a Redis stream: replays what a client missed (from `Last-Event-ID`, or
 * everything for a new client), then follows live events until the closing event.
 *
 * No stream holds a Redis connection of its own: the replay is read a page at a time on the shared
 * connection, and live events come from the process's stream hub, one blocking reader for every
 * stream followed (packages/pipeline's StreamHub). Before the 200 is sent, the stream must be
 * admitted under its key's cap and the process's (sse-streams.ts), the hub must be able to read,
 * and the first page must have been read: a stream Redis cannot serve is refused, never answered
 * 200 and left silent. A client resuming at or past the end of a finished stream gets the closing
 * event at once. While a stream is idle, each heartbeat also looks again for what the hub cannot
 * see (events moved to a compacted run's archive, an end before the client's resume point), and a
 * stream whose Redis has gone away is closed, so that its client reconnects and is told.
 */
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { HttpError, requestKeyId } from '@switchyard/http-kit';
import { compareStreamIds, type StreamEvent, type StreamHub } from '@switchyard/pipeline';
import { redisUnavailable } from '@switchyard/redis';
import type { SseStreams } from './sse-streams.js';

export { SseStreams } from './sse-streams.js';

/** Where a stream's events come from (a run's, a batch's). */
export interface EventSource {
  /** The Redis stream followed live. */
  key: string;
  /** The next page of events after `after`, without waiting; empty when there are no more now. */
  read(after: string): Promise<StreamEvent[]>;
  /** The closing event when the stream has ended at or before `after` (a client resuming past its end), else null. */
  endedAt(after: string): Promise<StreamEvent | null>;
  /** Completes the closing event before it is sent (a run's `done` gets the run's result). */
  complete?(event: StreamEvent): Promise<StreamEvent>;
}

export interface StreamOptions {
  source: EventSource;
  /** The event type after which the stream closes. */
  closeOn: string;
  hub: StreamHub;
  streams: SseStreams;
  /** The shared connection, to tell an outage. */
  redis: Redis;
  /** Milliseconds between keep-alive comments when nothing happens (default 15000). */
  heartbeatMs?: number;
}

/**
 * Bytes a client may leave unread before its stream is closed: a client that does not read would
 * otherwise make the process hold every event of the run for it. It resumes with Last-Event-ID.
 */
export const SSE_MAX_UNSENT_BYTES = 1024 * 1024;
/** How long the replay waits for a client to read what was sent before it is closed. */
export const SSE_DRAIN_TIMEOUT_MS = 30_000;

/** A resume point: a stream id whose parts fit in a double exactly (a real id's time has 13 digits). */
const RESUMABLE_ID = /^\d{1,15}(-\d{1,15})?$/;

function resumePoint(req: Request): string {
  const id = req.get('last-event-id')?.trim();
  return id && RESUMABLE_ID.test(id) ? id : '0';
}

/** Writes one client's events in order, each once, and closes the stream after the closing one. */
class SseWriter {
  after: string;
  #closed = false;
  #chain: Promise<void> = Promise.resolve();
  #wroteAt = Date.now();
  readonly #res: Response;
  readonly #options: StreamOptions;
  readonly #onClose: () => void;

  constructor(res: Response, after: string, options: StreamOptions, onClose: () => void) {
    this.#res = res;
    this.after = after;
    this.#options = options;
    this.#onClose = onClose;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Milliseconds since anything was written. */
  get idleMs(): number {
    return Date.now() - this.#wroteAt;
  }

  /** Sends the events after those already sent, in order; `force` sends the given closing event whatever its id. */
  send(events: readonly StreamEvent[], force = false): Promise<void> {
    this.#chain = this.#chain.then(() => this.#send(events, force)).catch(() => this.close());
    return this.#chain;
  }

  /** Resolves once the client has read what was sent (or the stream closed); closes a client that reads nothing for too long. */
  async drained(): Promise<void> {
    await this.#chain;
    const res = this.#res;
    if (this.#closed || !res.writableNeedDrain) return;
    const drained = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), SSE_DRAIN_TIMEOUT_MS);
      const onDrain = () => finish(true);
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        res.off('drain', onDrain).off('close', onDrain);
        resolve(ok);
      };
      res.on('drain', onDrain).on('close', onDrain);
    });
    if (!drained) this.close();
  }

  keepAlive(): void {
    if (this.#closed) return;
    this.#res.write(': keep-alive\n\n');
    this.#wroteAt = Date.now();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#res.end();
    this.#onClose();
  }

  async #send(events: readonly StreamEvent[], force: boolean): Promise<void> {
    for (const stored of events) {
      if (this.#closed) return;
      if (!force && compareStreamIds(stored.id, this.after) <= 0) continue;
      if (this.#res.writableLength > SSE_MAX_UNSENT_BYTES) return this.close();
      const closing = stored.type === this.#options.closeOn;
      const event = closing && this.#options.source.complete ? await this.#options.source.complete(stored) : stored;
      if (this.#closed) return;
      this.#res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
      this.#wroteAt = Date.now();
      if (compareStreamIds(event.id, this.after) > 0) this.after = event.id;
      if (closing) return this.close();
    }
  }
}

/** Checks that Redis can serve the stream and reads its first page, before anything is sent. */
async function openingRead(options: StreamOptions, after: string): Promise<{ first: StreamEvent[]; end: StreamEvent | null }> {
  try {
    await options.hub.ready();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HttpError({ status: 503, code: 'redis_unavailable', message: `The service cannot answer now: ${reason}`, details: { reason, retry_after_s: 1 }, headers: { 'Retry-After': '1' } });
  }
  const first = await options.source.read(after);
  return { first, end: first.length === 0 ? await options.source.endedAt(after) : null };
}

export async function streamEvents(req: Request, res: Response, options: StreamOptions): Promise<void> {
  options.streams.admit(requestKeyId(res), res);
  const resumeFrom = resumePoint(req);
  const { first, end } = await openingRead(options, resumeFrom);

  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.write('retry: 2000\n\n');
  let stopFollowing = () => undefined as void;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const heartbeat = setInterval(() => void idleCheck(), heartbeatMs);
  const writer = new SseWriter(res, resumeFrom, options, () => {
    clearInterval(heartbeat);
    stopFollowing();
  });
  res.on('close', () => writer.close());

  let checking = false;
  // What the hub cannot bring: events moved into a compacted run's archive, an end before the resume point.
  async function idleCheck(): Promise<void> {
    if (checking || writer.closed) return;
    if (redisUnavailable(options.redis)) return writer.close();
    if (writer.idleMs < heartbeatMs - 50) return;
    writer.keepAlive();
    checking = true;
    try {
      const missed = await options.source.read(writer.after);
      if (missed.length > 0) await writer.send(missed);
      else {
        const ended = await options.source.endedAt(writer.after);
        if (ended) await writer.send([ended], true);
      }
    } catch {
      writer.close();
    } finally {
      checking = false;
    }
  }

  if (end) return writer.send([end], true);
  try {
    for (let page = first; !writer.closed && page.length > 0; page = await options.source.read(writer.after)) {
      await writer.send(page);
      await writer.drained();
      if (writer.closed) return;
    }
  } catch {
    // Redis went away during the replay: the client resumes from what it has.
    return writer.close();
  }
  stopFollowing = options.hub.follow(options.source.key, writer.after, (events) => void writer.send(events), () => writer.close());
  if (writer.closed) stopFollowing();
}
