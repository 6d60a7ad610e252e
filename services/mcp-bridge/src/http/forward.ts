/**
 * Hands an Express request to the SDK's web-standard transport and writes its Response back.
 * The web-standard transport is used (not the Node wrapper) so that a restored session can replay
 * its handshake through the public `handleRequest`, with no Node request to fake.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

export interface ForwardOptions {
  /** The JSON body Express parsed, for POST. */
  parsedBody?: unknown;
  /** The bearer key, handed to handlers as authInfo. */
  token: string;
  /** Called with the id of the first SSE event of the response (which names its stream). */
  onFirstEventId?: (eventId: string) => void;
}

function webRequest(req: ExpressRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  // The body, when there is one, travels as parsedBody: the web request carries none.
  return new Request(new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`), { method: req.method, headers, signal });
}

export async function forward(transport: WebStandardStreamableHTTPServerTransport, req: ExpressRequest, res: ExpressResponse, options: ForwardOptions): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const response = await transport.handleRequest(webRequest(req, abort.signal), {
    parsedBody: options.parsedBody,
    authInfo: { token: options.token, clientId: 'api-key', scopes: [] },
  });
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  // The client leaving cancels the stream, so the transport stops writing to it (and stores only).
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.on('close', cancel);
  let sniff = options.onFirstEventId ? '' : undefined;
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (sniff !== undefined) {
        sniff += decoder.decode(value, { stream: true });
        const match = /^id: (.+)$/m.exec(sniff);
        if (match?.[1]) {
          options.onFirstEventId?.(match[1]);
          sniff = undefined;
        } else if (sniff.length > 4096) sniff = undefined;
      }
      res.write(value);
    }
  } catch {
    // The stream failed or was cancelled because the client left: either way it is over.
  } finally {
    res.off('close', cancel);
    res.end();
  }
}
