/**
 * Reads a Server-Sent Events body with eventsource-parser, which handles CRLF, comments
 * (heartbeats), multi-line `data:` and split chunks. Events are handed over one by one; the
 * handler returns true to stop reading.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type { EventSourceMessage };

/** Resolves 'stopped' when the handler asked to stop, 'ended' when the body ran out first. */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (message: EventSourceMessage) => boolean | void,
): Promise<'ended' | 'stopped'> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const drain = (): boolean => {
    while (pending.length > 0) if (onEvent(pending.shift() as EventSourceMessage) === true) return true;
    return false;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (drain()) return 'stopped';
    }
    parser.feed(decoder.decode());
    return drain() ? 'stopped' : 'ended';
  } finally {
    // Releases the connection when we stop early; a no-op once the body has ended.
    await reader.cancel().catch(() => undefined);
  }
}
