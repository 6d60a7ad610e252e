/**
 * Server-Sent Events from a Redis stream: replays what a client missed (from `Last-Event-ID`, or
 * everything for a new client), then follows live events until the closing event. Each client
 * blocks on a connection of its own, so a slow reader holds up nobody else.
 */
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { followRedis } from '@switchyard/redis';
import { EVENT_ID_PATTERN, readEvents, type StreamEvent } from '@switchyard/pipeline';

/** Open streams, so a shutdown can end them. */
export class SseStreams {
  readonly #open = new Set<Response>();
  /** Clients connected now. */
  get size(): number {
    return this.#open.size;
  }
  add(res: Response): void {
    this.#open.add(res);
    res.on('close', () => this.#open.delete(res));
  }
  endAll(): void {
    for (const res of this.#open) res.end();
  }
}

export interface StreamOptions {
  redis: Redis;
  key: string;
  /** The event type after which the stream closes. */
  closeOn: string;
  streams: SseStreams;
  /** Milliseconds between keep-alive comments when nothing happens (default 15000). */
  heartbeatMs?: number;
  /**
   * Reads the next events after `after` on the client's own connection, waiting up to `blockMs`
   * (default: the stream at `key`, plainly). A run's reader also finds them in its archive.
   */
  read?: (read: { reader: Redis; after: string; blockMs: number }) => Promise<StreamEvent[]>;
  /** Completes the closing event before it is sent (a run's `done` gets the run's result). */
  completeClosing?: (event: StreamEvent) => Promise<StreamEvent>;
}

export async function streamEvents(req: Request, res: Response, options: StreamOptions): Promise<void> {
  const resumeFrom = req.get('last-event-id')?.trim();
  let after = resumeFrom && EVENT_ID_PATTERN.test(resumeFrom) ? resumeFrom : '0';
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.write('retry: 2000\n\n');
  options.streams.add(res);

  const reader = followRedis(options.redis.duplicate());
  let open = true;
  res.on('close', () => {
    open = false;
    reader.disconnect();
  });
  try {
    while (open) {
      const blockMs = options.heartbeatMs ?? 15_000;
      const events = options.read ? await options.read({ reader, after, blockMs }) : await readEvents({ redis: reader, key: options.key, after, blockMs });
      if (events.length === 0) res.write(': keep-alive\n\n');
      for (const stored of events) {
        const event = stored.type === options.closeOn && options.completeClosing ? await options.completeClosing(stored) : stored;
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${event.data}\n\n`);
        after = event.id;
        if (event.type === options.closeOn) {
          open = false;
          break;
        }
      }
    }
  } catch {
    // The client left (its reader was disconnected) or Redis went away: either way the stream ends.
  } finally {
    reader.disconnect();
    res.end();
  }
}
