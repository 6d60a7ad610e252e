/**
 * A small, real MCP server on loopback for the source's bound tests: it can list many tools over
 * many pages, answer with a result of any size, and hold a call until it is cancelled.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface FixtureOptions {
  /** Tools listed besides `echo`, `huge`, `hold` and `drop` (default 0). */
  extraTools?: number;
  /** Tools per tools/list page (default 50). */
  pageSize?: number;
}

export interface FixtureServer {
  url: string;
  /** Calls of `hold` the server saw cancelled (by notifications/cancelled). */
  cancelled: number;
  /** Calls the server received, any tool. */
  calls: number;
  /** tools/list requests the server received (pages). */
  lists: number;
  /** Each call's `_meta`, in the order received. */
  metas: (Record<string, unknown> | undefined)[];
  close(): Promise<void>;
}

const inputSchema = { type: 'object', properties: { bytes: { type: 'integer', minimum: 0 }, text: { type: 'string' } }, additionalProperties: false } as const;

/** The fixture's MCP server (not yet connected): `names` listed `pageSize` at a time; `state` counts calls and cancellations. */
export function fixtureMcpServer(names: readonly string[], pageSize: number, state: { calls: number; cancelled: number; lists: number; metas?: (Record<string, unknown> | undefined)[] }, hooks: { dropConnections?: () => void } = {}): Server {
  const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    state.lists++;
    const start = Number(request.params?.cursor ?? 0);
    const page = names.slice(start, start + pageSize).map((name) => ({ name, inputSchema }));
    const next = start + pageSize;
    return { tools: page, ...(next < names.length ? { nextCursor: String(next) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    state.calls++;
    state.metas?.push(request.params._meta as Record<string, unknown> | undefined);
    // `drop`: the connection goes while the call is in flight, its answer lost (the work was done).
    if (request.params.name === 'drop' && hooks.dropConnections) {
      hooks.dropConnections();
      return { content: [] };
    }
    const args = (request.params.arguments ?? {}) as { bytes?: number; text?: string };
    if (request.params.name === 'huge') return { content: [{ type: 'text', text: 'x'.repeat(args.bytes ?? 0) }] };
    if (request.params.name === 'hold') {
      await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
      state.cancelled++;
      return { content: [] };
    }
    return { content: [{ type: 'text', text: args.text ?? '' }] };
  });
  return server;
}

export async function startFixtureServer(options: FixtureOptions = {}): Promise<FixtureServer> {
  const names = ['echo', 'huge', 'hold', 'drop', ...Array.from({ length: options.extraTools ?? 0 }, (_, i) => `extra_${i}`)];
  const pageSize = options.pageSize ?? 50;
  const state = { cancelled: 0, calls: 0, lists: 0, metas: [] as (Record<string, unknown> | undefined)[] };

  const makeServer = () => fixtureMcpServer(names, pageSize, state, { dropConnections: () => httpServer.closeAllConnections() });

  // One server per session, so a notifications/cancelled reaches the server that runs the call.
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = http.createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) {
      void known.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(typeof id === 'string' ? 404 : 405).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport) });
    void makeServer().connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get cancelled() {
      return state.cancelled;
    },
    get calls() {
      return state.calls;
    },
    get lists() {
      return state.lists;
    },
    metas: state.metas,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
