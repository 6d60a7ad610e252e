/**
 * `POST /run/{tool}?stream=true`: the run as Server-Sent Events — `progress`, `content` per
 * chunk, then `done` with the result, or `error`. Chunks are queued as the author produces them
 * and written by one loop, so chunk delays and stream cuts apply however fast the author is.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'express';
import type { StoryAuthor } from './authors/author.js';
import { streamCutPoint, type FaultKnobs } from './faults.js';
import type { ToolDefinition } from './tools.js';
import { toErrorBody } from './run-errors.js';

export interface StreamRunOptions {
  res: Response;
  tool: ToolDefinition;
  input: unknown;
  author: StoryAuthor;
  faults: FaultKnobs;
  /** Milliseconds between `: keep-alive` comments (default 15 s). */
  heartbeatMs: number;
}

const eventText = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function writeEvent(res: Response, event: string, data: unknown): void {
  res.write(eventText(event, data));
}

export async function streamRun(options: StreamRunOptions): Promise<void> {
  const { res, tool, faults } = options;
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), options.heartbeatMs);
  writeEvent(res, 'progress', { completed: 0, message: `${tool.name} started` });

  const queue: string[] = [];
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  let finished = false;
  const run = tool
    .run(options.author, options.input, { signal: abort.signal, onChunk: (chunk) => (queue.push(chunk), notify()) })
    .finally(() => ((finished = true), notify()));
  run.catch(() => undefined); // observed below; keeps an early failure from being unhandled

  try {
    let sent = 0;
    const cutAfter = streamCutPoint(faults);
    const startedAt = performance.now();
    // Pacing over a duration needs the number of chunks, so the author finishes first.
    if (faults.streamMs > 0) await run.catch(() => undefined);
    const total = queue.length;
    for (;;) {
      if (queue.length === 0) {
        if (finished) break;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (faults.chunkDelayMs > 0) await sleep(faults.chunkDelayMs, undefined, { signal: abort.signal });
      if (faults.streamMs > 0) await sleep(Math.max(0, startedAt + (faults.streamMs * (sent + 1)) / total - performance.now()), undefined, { signal: abort.signal });
      const chunk = eventText('content', { chunk: queue.shift() });
      sent += 1;
      // Only an author that has finished knows how many chunks there are, so only then is a percentage honest.
      // A chunk and its progress go out in one write: one syscall and, usually, one TCP segment.
      const progress = finished && tool.streamsContent ? eventText('progress', { completed: Math.round((sent / (sent + queue.length)) * 100) }) : '';
      const cut = cutAfter !== null && sent >= cutAfter;
      res.write(cut ? chunk : chunk + progress);
      if (cut) {
        // Flush what was sent, then drop the connection: the caller sees N whole chunks and no `done`.
        await new Promise<void>((resolve) => res.write('', () => resolve()));
        abort.abort();
        res.destroy();
        return;
      }
    }
    const result = await run;
    res.write(eventText('progress', { completed: 100, message: `${tool.name} finished` }) + eventText('done', { status: 'success', result }));
  } catch (error) {
    if (!abort.signal.aborted) writeEvent(res, 'error', toErrorBody(error));
  } finally {
    clearInterval(heartbeat);
    if (!res.destroyed) res.end();
  }
}
