/**
 * Reading an SSE endpoint in tests with the same parser the tool client uses.
 */
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';

/** Reads events until the server closes the stream (or `until` says stop); returns them all. */
export async function readSse(res: Response, until?: (event: EventSourceMessage) => boolean): Promise<EventSourceMessage[]> {
  if (!res.body) throw new Error('no body');
  const events: EventSourceMessage[] = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
    if (until?.(value)) {
      await reader.cancel();
      break;
    }
  }
  return events;
}
