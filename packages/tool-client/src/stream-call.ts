/**
 * Stream mode: `POST /run/{tool}?stream=true` read as SSE. Chunks go to the caller as they
 * arrive; `done` ends the call with its result, or with one built from the chunks.
 */
import { StreamContent, StreamDone, StreamError, StreamProgress } from '@switchyard/contracts';
import { ensureOk, readJson, type AttemptScope } from './attempt.js';
import { ToolStreamError, readErrorDetail } from './errors.js';
import { resultFromChunks, unwrapRunReply } from './results.js';
import { readEventStream, type EventSourceMessage } from './sse.js';

export interface StreamHandlers {
  onChunk?: ((chunk: string) => void) | undefined;
  onProgress?: ((progress: StreamProgress) => void) | undefined;
}

// Codes a service may send in an `error` event that say "try again" rather than "this input fails".
const TRANSIENT_CODES = new Set(['service_unavailable', 'internal_error', 'timeout', 'overloaded', 'rate_limited']);

function parseData(message: EventSourceMessage): unknown {
  try {
    return JSON.parse(message.data);
  } catch {
    return message.data;
  }
}

/** One streaming attempt; throws ToolStreamError when the stream ends without `done`. */
export async function streamOnce(options: {
  scope: AttemptScope & { tool: string };
  url: string;
  init: RequestInit;
  signal: AbortSignal;
  handlers: StreamHandlers;
  fetch: typeof fetch;
}): Promise<unknown> {
  const { scope, handlers } = options;
  const res = await ensureOk(scope, await options.fetch(options.url, { ...options.init, signal: options.signal, headers: { ...options.init.headers, Accept: 'text/event-stream' } }));
  // A service that does not stream may answer with the finished JSON result.
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return unwrapRunReply(await readJson(scope, res));
  if (!res.body) throw new ToolStreamError({ ...scope, code: 'stream_interrupted', message: `${scope.service} sent an empty stream`, retryable: true });

  const chunks: string[] = [];
  let outcome: { result: unknown } | { error: ToolStreamError } | undefined;
  const onEvent = (message: EventSourceMessage): boolean => {
    // A service may send progress with every chunk: unread unless someone listens.
    if (message.event === 'progress' && !handlers.onProgress) return false;
    const data = parseData(message);
    switch (message.event) {
      case 'content': {
        const content = StreamContent.safeParse(data);
        if (content.success) {
          chunks.push(content.data.chunk);
          handlers.onChunk?.(content.data.chunk);
        }
        return false;
      }
      case 'progress': {
        const progress = StreamProgress.safeParse(data);
        if (progress.success) handlers.onProgress?.(progress.data);
        return false;
      }
      case 'done': {
        const done = StreamDone.safeParse(data);
        const result = done.success && done.data.result !== undefined ? done.data.result : resultFromChunks(scope.tool, chunks);
        outcome = { result };
        return true;
      }
      case 'error': {
        const detail = StreamError.safeParse(data).success ? readErrorDetail(data) : undefined;
        const code = detail?.code ?? 'stream_error';
        outcome = { error: new ToolStreamError({ ...scope, code, message: detail?.message ?? `${scope.service} reported an error mid-stream`, details: detail?.details, retryable: TRANSIENT_CODES.has(code) }) };
        return true;
      }
      default:
        return false; // unknown events are someone else's extension
    }
  };
  try {
    await readEventStream(res.body, onEvent);
  } catch (error) {
    // The connection broke mid-stream. An abort or timeout is classified by the caller; anything else is a cut.
    if (options.signal.aborted) throw error;
    throw new ToolStreamError({ ...scope, code: 'stream_interrupted', message: `${scope.service} broke the stream after ${chunks.length} chunks`, retryable: true, cause: error });
  }
  if (!outcome) {
    throw new ToolStreamError({ ...scope, code: 'stream_interrupted', message: `${scope.service} closed the stream after ${chunks.length} chunks without a done event`, retryable: true });
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}
