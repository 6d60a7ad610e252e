/**
 * Printing an event stream as it arrives: a line per event (`id  type  data`), or one JSON object
 * per line with --json (`{"id","event","data"}`), until `done`.
 */
import type { StreamEvent } from '@switchyard/client';
import type { CliContext } from '../context.js';

export function eventPrinter(ctx: CliContext, json: boolean | undefined): (event: StreamEvent) => void {
  return (event) => {
    if (json) ctx.out.write(`${JSON.stringify({ id: event.id ?? null, event: event.event, data: event.data })}\n`);
    else ctx.out.write(`${event.id ?? '-'}  ${event.event.padEnd(7)}  ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n`);
  };
}
