import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CodeIndex, serveCkbHttp, type CkbServerControls } from '@switchyard/code-intel';
import { createLogger } from '@switchyard/logger';
import { memorySession } from '@switchyard/tool-suite';
import { ToolRegistry } from '../../registry.js';
import { createBridgeServer } from '../../server.js';
import { codeIntelSuite } from './index.js';

const FIXTURE = fileURLToPath(new URL('../../../../../packages/code-intel/fixtures/sample-repo', import.meta.url));

// A CKB-compatible server on loopback, and a clock the test moves.
const controls: CkbServerControls = {};
let ckb: Awaited<ReturnType<typeof serveCkbHttp>>;
let now = Date.UTC(2026, 0, 18);
let client: Client;

before(async () => {
  ckb = await serveCkbHttp(new CodeIndex({ root: FIXTURE, dataDir: null }), controls);
  const suite = codeIntelSuite({ root: FIXTURE, dataDir: null, ckb: { url: ckb.url }, clock: { now: () => now } });
  const server = createBridgeServer({ tools: new ToolRegistry([suite]), sessionId: 'test', session: memorySession(), logger: createLogger({ name: 'code-intel-suite', level: 'silent' }) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(clientSide);
});
after(async () => {
  await client.close();
  await ckb.close();
});

// The SDK's client checks structuredContent against each tool's output schema.
const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args }, CallToolResultSchema)) as CallToolResult;
const structured = async (name: string, args: Record<string, unknown>) => {
  const result = await call(name, args);
  assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent));
  return result.structuredContent as Record<string, unknown> & { metadata: Record<string, unknown> };
};

test('the suite offers ci_graph_rag, ci_search and ci_call_chain, read-only, with input and output schemas', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['ci_graph_rag', 'ci_search', 'ci_call_chain']);
  for (const tool of tools) {
    assert.equal(tool.annotations?.readOnlyHint, true);
    assert.equal(tool.outputSchema?.type, 'object');
  }
  const graphRag = tools[0]?.inputSchema as { properties: Record<string, { default?: unknown; maximum?: number }>; required: string[] };
  assert.deepEqual(Object.keys(graphRag.properties), ['query', 'top_k', 'budget', 'fusion_depth']);
  assert.deepEqual(graphRag.required, ['query']);
  assert.deepEqual([graphRag.properties.fusion_depth?.default, graphRag.properties.fusion_depth?.maximum], [1, 5]);
});

test('ci_graph_rag answers candidates and seed 001 metadata, using CKB when it is healthy', async () => {
  const answer = await structured('ci_graph_rag', { query: 'HS256', top_k: 5 });
  assert.equal(answer.metadata.ckb_available, true);
  assert.equal(answer.metadata.fusion_depth, 1);
  const files = (answer.candidates as { file: string }[]).map((c) => c.file);
  assert.equal(files[0], 'src/lib/jwt.ts');
});

test('bad arguments are a tool result with isError naming the rule, which a model can correct', async () => {
  for (const [args, message] of [
    [{ query: '' }, /query/],
    [{ query: '   ' }, /query must not be empty/],
    [{ query: 'x', fusion_depth: 6 }, /fusion_depth/],
    [{ query: 'x', budget: 0 }, /budget/],
  ] as const) {
    const result = await call('ci_graph_rag', args);
    assert.equal(result.isError, true, JSON.stringify(args));
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'invalid_arguments');
    assert.match(error.message, /Invalid arguments for tool ci_graph_rag/);
    assert.match(error.message, message);
  }
});

test('after a CKB failure the tool falls back, and the cooldown counts down across calls', async () => {
  controls.unavailable = true;
  now += 61_000; // past any earlier cooldown
  const failed = await structured('ci_graph_rag', { query: 'retry' });
  assert.deepEqual([failed.metadata.ckb_fallback_reason, failed.metadata.ckb_cooldown_remaining_s, failed.metadata.fallback_mode], ['health_check_failed', 60, 'local_graph']);
  controls.unavailable = false;
  const remaining: unknown[] = [];
  for (let i = 0; i < 3; i += 1) {
    now += 20_000;
    const answer = await structured('ci_graph_rag', { query: 'retry', fusion_depth: 2 });
    remaining.push(answer.metadata.ckb_cooldown_remaining_s);
  }
  assert.deepEqual(remaining, [40, 20, undefined]);
  assert.equal((await structured('ci_graph_rag', { query: 'retry' })).metadata.ckb_available, true);
});

test('ci_search answers chunks with their lines', async () => {
  const answer = await structured('ci_search', { query: 'token bucket', mode: 'keyword', top_k: 2 });
  const [best] = answer.results as { file: string; start_line: number }[];
  assert.deepEqual([best?.file, best?.start_line], ['src/middleware/rate-limit.ts', 1]);
});

test('ci_call_chain follows calls, and an unknown symbol is a tool failure', async () => {
  const chain = await structured('ci_call_chain', { symbol: 'withRetry', direction: 'callers', depth: 2 });
  const callers = (chain.callers as { name: string; depth: number }[]).map((s) => `${s.depth} ${s.name}`);
  assert.deepEqual(callers.sort(), ['1 chargeCard', '2 placeOrder']);
  const missing = await call('ci_call_chain', { symbol: 'noSuchThing' });
  assert.equal(missing.isError, true);
  assert.equal((missing.structuredContent as { error: { code: string } }).error.code, 'symbol_not_found');
});
