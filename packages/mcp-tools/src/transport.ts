/**
 * Makes the SDK transport for one configured server. Over HTTP, the body of each POST reply (one
 * request's progress and result) is cut off past a byte budget while it streams in, so a server
 * cannot make us buffer a result of any size; over stdio the SDK's own line buffer is bounded.
 */
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './config.js';

/** Raised inside the reply stream when a POST reply outgrows its budget. */
export class ReplyTooLargeError extends Error {
  override name = 'ReplyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`the server's reply exceeded ${limitBytes} bytes`);
  }
}

function cappedBody(body: ReadableStream<Uint8Array>, limitBytes: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limitBytes) controller.error(new ReplyTooLargeError(limitBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** A fetch whose POST replies are cut off past `limitBytes`; the long-lived GET stream is not. */
export function boundedFetch(limitBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || !response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limitBytes) {
      await response.body.cancel();
      throw new ReplyTooLargeError(limitBytes);
    }
    return new Response(cappedBody(response.body, limitBytes), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The transport for `server`; `replyBudgetBytes` bounds one reply (result plus envelope). */
export function createTransport(server: McpServerConfig, replyBudgetBytes: number): Transport {
  if ('url' in server) {
    return new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers ?? {} },
      fetch: boundedFetch(replyBudgetBytes),
      // A dropped GET stream is the source's to reconnect (it starts a new session), not the SDK's to retry forever.
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
    });
  }
  return new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    // Only the SDK's safe defaults (PATH, HOME…) and what the configuration names: never our secrets.
    env: { ...getDefaultEnvironment(), ...(server.env ?? {}) },
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: 'pipe',
    maxBufferSize: replyBudgetBytes,
  });
}
