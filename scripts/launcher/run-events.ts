/**
 * Follows a run's Server-Sent Events (`GET /v1/runs/:id/events`) until `done`, reconnecting with
 * `Last-Event-ID` when the stream breaks, so no event is lost or seen twice.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface FollowOptions {
  url: string;
  headers: Record<string, string>;
  onEvent: (type: string, data: unknown) => void;
  signal?: AbortSignal;
  /** Reconnects in a row without any event before giving up (default 5). */
  maxReconnects?: number;
  /** First wait before a reconnect, doubled each time (default 250 ms). */
  backoffMs?: number;
}

export class EventsUnavailable extends Error {
  override name = 'EventsUnavailable';
}

/** Resolves after the `done` event; rejects with EventsUnavailable when the stream cannot be had. */
export async function followRunEvents(options: FollowOptions): Promise<void> {
  let lastId: string | undefined;
  let failures = 0;
  for (;;) {
    let problem: string;
    try {
      const res = await fetch(options.url, {
        headers: { ...options.headers, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: options.signal,
      });
      if (!res.ok || !res.body) {
        const message = `HTTP ${res.status} from ${options.url}`;
        await res.body?.cancel();
        // A refusal (unknown run, bad key) will not pass by trying again.
        if (res.status >= 400 && res.status < 500 && res.status !== 429) throw new EventsUnavailable(message);
        problem = message;
      } else {
        const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
        for await (const event of events) {
          if (event.id) lastId = event.id;
          failures = 0;
          let data: unknown = event.data;
          try {
            data = JSON.parse(event.data);
          } catch {
            // not JSON: handed on as text
          }
          options.onEvent(event.event ?? 'message', data);
          if (event.event === 'done') return;
        }
        problem = 'the stream ended before done';
      }
    } catch (error) {
      if (error instanceof EventsUnavailable || options.signal?.aborted) throw error;
      problem = error instanceof Error ? error.message : String(error);
    }
    failures += 1;
    if (failures > (options.maxReconnects ?? 5)) throw new EventsUnavailable(`${options.url}: ${problem}`);
    await new Promise((resolve) => setTimeout(resolve, (options.backoffMs ?? 250) * 2 ** (failures - 1)));
  }
}
