/**
 * A small CKB-compatible MCP server for tests and local trials: getStatus, searchSymbols,
 * getCallGraph and findReferences, named and shaped as CKB's, answered from this package's own
 * analysis of a workspace. Its controls make it slow (every tool waits `delayMs`), unhealthy
 * (getStatus says "unavailable") or failing (graph tools answer MCP errors); they are read on each
 * call, so a test can flip them while a client stays connected.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { CodeIndex } from '../code-index.js';
import { walkCalls, type SymbolRef } from '../graph.js';
import { CKB_TOOLS } from './protocol.js';

export interface CkbServerControls {
  /** Every tool answers after this many ms (CKB_MOCK_DELAY_MS). Default 0. */
  delayMs?: number;
  /** getStatus reports "unavailable" (CKB_UNAVAILABLE=1). Default false. */
  unavailable?: boolean;
  /** searchSymbols, getCallGraph and findReferences answer errors (CKB_MOCK_FAIL=1). Default false. */
  failGraphTools?: boolean;
  /** Told of every tool call. */
  onCall?: (tool: string, args: Record<string, unknown>) => void;
}

const ID_PREFIX = 'ckb:local:sym:';
const stableId = (symbol: SymbolRef) => `${ID_PREFIX}${encodeURIComponent(symbol.id)}`;
const json = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
const refusal = (message: string) => ({ content: [{ type: 'text' as const, text: message }], isError: true });
const asSymbol = (symbol: SymbolRef) => ({ stableId: stableId(symbol), name: symbol.name, kind: symbol.kind, location: { fileId: symbol.file, startLine: symbol.line } });

export function createCkbServer(index: CodeIndex, controls: CkbServerControls = {}): McpServer {
  const server = new McpServer({ name: 'ckb-mock', version: '0.1.0' });
  const lookup = (id: string) => (id.startsWith(ID_PREFIX) ? index.graph.symbols.get(decodeURIComponent(id.slice(ID_PREFIX.length))) : undefined);

  /** Wraps a tool: delay, report, refresh the index, and the failure switch for graph tools. */
  const tool = <A extends Record<string, unknown>>(name: string, graphTool: boolean, run: (args: A) => ReturnType<typeof json> | ReturnType<typeof refusal>) => async (args: A) => {
    controls.onCall?.(name, args);
    if (controls.delayMs) await sleep(controls.delayMs, undefined, { ref: false });
    if (graphTool && controls.failGraphTools) return refusal(`${name}: backend error (CKB_MOCK_FAIL)`);
    await index.refresh();
    return run(args);
  };

  server.registerTool(
    CKB_TOOLS.status,
    { description: 'Get CKB system status: backend health and repository state.', inputSchema: {} },
    tool(CKB_TOOLS.status, false, () => json({ status: controls.unavailable ? 'unavailable' : 'healthy', backends: { local: { available: !controls.unavailable } }, repository: { root: index.root, files: index.fileCount } })),
  );

  server.registerTool(
    CKB_TOOLS.searchSymbols,
    {
      description: 'Search for symbols whose name contains the query (case-insensitive).',
      inputSchema: { query: z.string().min(1), kinds: z.array(z.string()).optional(), limit: z.number().int().min(1).max(500).optional() },
    },
    tool(CKB_TOOLS.searchSymbols, true, (args: { query: string; kinds?: string[] | undefined; limit?: number | undefined }) => {
      const query = args.query.toLowerCase();
      const symbols = [...index.graph.symbols.values()]
        .filter((s) => s.kind !== 'module' && s.name.toLowerCase().includes(query) && (!args.kinds?.length || args.kinds.includes(s.kind)))
        .sort((a, b) => Number(b.name.toLowerCase() === query) - Number(a.name.toLowerCase() === query) || (a.id < b.id ? -1 : 1))
        .slice(0, args.limit ?? 20);
      return json({ symbols: symbols.map(asSymbol), totalCount: symbols.length });
    }),
  );

  server.registerTool(
    CKB_TOOLS.callGraph,
    {
      description: 'Get a lightweight call graph showing callers and callees of a symbol.',
      inputSchema: { symbolId: z.string(), direction: z.enum(['callers', 'callees', 'both']).optional(), depth: z.number().int().min(1).max(4).optional() },
    },
    tool(CKB_TOOLS.callGraph, true, (args: { symbolId: string; direction?: 'callers' | 'callees' | 'both' | undefined; depth?: number | undefined }) => {
      const root = lookup(args.symbolId);
      if (!root) return refusal(`symbol not found: ${args.symbolId}`);
      const direction = args.direction ?? 'both';
      const nodes = [{ id: stableId(root), name: root.name, kind: root.kind, location: { fileId: root.file, startLine: root.line }, role: 'root', depth: 0 }];
      const edges: { from: string; to: string }[] = [];
      for (const role of ['callers', 'callees'] as const) {
        if (direction !== 'both' && direction !== role) continue;
        for (const step of walkCalls(index.graph, root.id, role, args.depth ?? 1)) {
          const symbol = index.graph.symbols.get(step.id);
          const via = index.graph.symbols.get(step.via);
          if (!symbol || !via) continue;
          nodes.push({ id: stableId(symbol), name: symbol.name, kind: symbol.kind, location: { fileId: symbol.file, startLine: symbol.line }, role: role === 'callers' ? 'caller' : 'callee', depth: step.depth });
          edges.push(role === 'callers' ? { from: stableId(symbol), to: stableId(via) } : { from: stableId(via), to: stableId(symbol) });
        }
      }
      return json({ root: stableId(root), nodes, edges });
    }),
  );

  server.registerTool(
    CKB_TOOLS.references,
    {
      description: 'Find all references to a symbol.',
      inputSchema: { symbolId: z.string(), limit: z.number().int().min(1).max(1000).optional() },
    },
    tool(CKB_TOOLS.references, true, (args: { symbolId: string; limit?: number | undefined }) => {
      const symbol = lookup(args.symbolId);
      if (!symbol) return refusal(`symbol not found: ${args.symbolId}`);
      const references = (index.graph.references.get(symbol.id) ?? []).slice(0, args.limit ?? 100);
      return json({ references: references.map((r) => ({ location: { fileId: r.file, startLine: r.line }, kind: 'reference' })), totalCount: references.length });
    }),
  );
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Serves the CKB server over Streamable HTTP (stateless) at `http://host:port/mcp`. */
export async function serveCkbHttp(index: CodeIndex, controls: CkbServerControls = {}, options: { host?: string; port?: number } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp' || req.method !== 'POST') {
      res.writeHead(req.url === '/mcp' ? 405 : 404).end();
      return;
    }
    try {
      const server = createCkbServer(index, controls);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, await readBody(req));
    } catch (error) {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: error instanceof Error ? error.message : 'bad request' } }));
    }
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, host, resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
