/**
 * Following an event stream of the API (`GET /v1/runs/{id}/events`, `GET /v1/batches/{id}/events`)
 * until its `done` event. A stream that breaks, or goes quiet past its budget, is taken up again
 * with `Last-Event-ID`, so no event is lost or seen twice; a refusal (4xx) is not retried.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { EventsUnavailable, networkProblem } from './errors.js';

/** An event as it arrived: its id, its type, and its data parsed as JSON (as text when it is not). */
export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: unknown;
}

export interface FollowOptions {
  /** The stream's absolute URL. */
  url: string;
  headers: Record<string, string>;
  onEvent: (event: StreamEvent) => void;
  /** Resume after this event id (sent as `Last-Event-ID`); default: from the start. */
  lastEventId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Breaks in a row, with no event between them, before giving up (default 5). */
  maxReconnects?: number;
  /** First wait before taking a broken stream up again, doubled each time (default 250 ms). */
  backoffMs?: number;
  /**
   * Ms without a byte (event or heartbeat) before the stream is taken as broken and taken up
   * again (default 45 000: three of the API's 15 s heartbeats).
   */
  idleTimeoutMs?: number;
  /** Bytes one event may take; a larger one ends the follow with EventsUnavailable (default 64 MiB). */
  maxEventBytes?: number;
  fetch?: typeof fetch;
}

export const FOLLOW_DEFAULTS = { maxReconnects: 5, backoffMs: 250, idleTimeoutMs: 45_000, maxEventBytes: 64 * 1024 * 1024 } as const;

function parseData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // not JSON: handed on as text
  }
}

/** Ends one connection when it goes quiet past `idleMs`, or one event grows past `maxBytes`. */
class ConnectionWatch {
  readonly controller = new AbortController();
  #pending = 0;
  #timer: NodeJS.Timeout | undefined;
  #tooLarge = false;

  constructor(
    private readonly idleMs: number,
    private readonly maxBytes: number,
  ) {
    this.#arm();
  }

  get tooLarge(): boolean {
    return this.#tooLarge;
  }

  /** Counts bytes as they arrive, before they are decoded. */
  counter(): TransformStream<Uint8Array, Uint8Array> {
    return new TransformStream({
      transform: (chunk, controller) => {
        this.#arm();
        this.#pending += chunk.byteLength;
        if (this.#pending > this.maxBytes) {
          this.#tooLarge = true;
          this.controller.abort(new Error(`an event larger than ${this.maxBytes} bytes`));
          return;
        }
        controller.enqueue(chunk);
      },
    });
  }

  /** An event or a comment has ended: what follows is a new one. */
  settled(): void {
    this.#pending = 0;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.controller.abort(new Error(`no data for ${this.idleMs / 1000} s`)), this.idleMs);
  }
}

/**
 * Resolves after the `done` event, with the last event id; rejects with EventsUnavailable when
 * the stream cannot be had, and with the signal's reason when it is aborted.
 */
export async function followEvents(options: FollowOptions): Promise<{ lastEventId: string | undefined }> {
  const settings = {
    maxReconnects: options.maxReconnects ?? FOLLOW_DEFAULTS.maxReconnects,
    backoffMs: options.backoffMs ?? FOLLOW_DEFAULTS.backoffMs,
    idleTimeoutMs: options.idleTimeoutMs ?? FOLLOW_DEFAULTS.idleTimeoutMs,
    maxEventBytes: options.maxEventBytes ?? FOLLOW_DEFAULTS.maxEventBytes,
  };
  const doFetch = options.fetch ?? fetch;
  let lastId = options.lastEventId;
  let failures = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const watch = new ConnectionWatch(settings.idleTimeoutMs, settings.maxEventBytes);
    const signal = options.signal ? AbortSignal.any([options.signal, watch.controller.signal]) : watch.controller.signal;
    let problem: string;
    try {
      const res = await doFetch(options.url, { headers: { ...options.headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }, signal });
      if (!res.ok || !res.body) {
        const body = await res.text().catch(() => '');
        const message = apiMessage(body) ?? `HTTP ${res.status}`;
        // A refusal (unknown run, bad key) will not pass by trying again.
        if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new EventsUnavailable(message, res.status);
        problem = `HTTP ${res.status}: ${message}`;
      } else {
        const parser = new EventSourceParserStream({ onComment: () => watch.settled() });
        const events = res.body.pipeThrough(watch.counter()).pipeThrough(new TextDecoderStream()).pipeThrough(parser);
        for await (const message of events) {
          // Events parsed from the chunk that held the one its handler aborted on are not delivered.
          options.signal?.throwIfAborted();
          watch.settled();
          if (message.id) lastId = message.id;
          failures = 0;
          const type = message.event ?? 'message';
          options.onEvent({ id: message.id, event: type, data: parseData(message.data) });
          if (type === 'done') return { lastEventId: lastId };
        }
        problem = 'the stream ended before done';
      }
    } catch (error) {
      if (error instanceof EventsUnavailable) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      if (watch.tooLarge) throw new EventsUnavailable(`${options.url}: ${String((watch.controller.signal.reason as Error).message)}`);
      problem = watch.controller.signal.aborted ? (watch.controller.signal.reason as Error).message : networkProblem(error, settings.idleTimeoutMs);
    } finally {
      watch.stop();
      watch.controller.abort();
    }
    failures += 1;
    if (failures > settings.maxReconnects) throw new EventsUnavailable(`${options.url}: ${problem} (${failures} tries)`);
    await sleep(settings.backoffMs * 2 ** (failures - 1), options.signal);
  }
}

function apiMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return body.trim() ? body.trim().slice(0, 200) : undefined;
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });
}
