/**
 * Registration's bounds over MCP (register_pipeline shares them with the API's PUT), a pipeline
 * tool's arguments checked by its own validator, and a deleted pipeline's tool taken away.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

let stack: TestStack;
let bridge: RunningBridge;
let client: Client;

before(async () => {
  stack = await startTestStack({ label: 'mcp-pipeline-bounds', inProcessWorkers: false });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-pipeline-bounds-test', level: 'silent' }) });
  client = new Client({ name: 'pipeline-bounds-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
});
after(async () => {
  await client.close();
  await bridge.close();
  await stack.close();
});

type Failure = { isError?: boolean; structuredContent?: { error: { code: string; details: { problems?: { path: string; message: string }[] } } } };

const search = { tool: 'search_relevant_information', args: { topic: "'tides'" } };

/** Resolves once a tools/list_changed is followed by a listing where `present(names)` holds. */
function listingWhere(present: (names: string[]) => boolean, timeoutMs = 10_000): Promise<void> {
  const told = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no tools/list_changed brought the listing awaited within ${timeoutMs} ms`)), timeoutMs);
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (!present((await client.listTools()).tools.map((tool) => tool.name))) return;
      clearTimeout(timer);
      resolve();
    });
  });
  told.catch(() => undefined);
  return told;
}

test('register_pipeline refuses the attacks as PUT does, with the same problems at their places', async () => {
  const defs: Record<string, unknown> = { l0: { type: 'string' } };
  for (let i = 1; i <= 25; i += 1) defs[`l${i}`] = { oneOf: [{ $ref: `#/$defs/l${i - 1}` }, { $ref: `#/$defs/l${i - 1}` }] };
  const oneOfs = { name: 'oneofs', input: { type: 'object', properties: { x: { $ref: '#/$defs/l25' } }, $defs: defs }, steps: { a: search } };
  const cases: [unknown, RegExp, RegExp][] = [
    [oneOfs, /^input$/, /could apply more than 1000 subschemas/],
    [JSON.stringify(oneOfs), /^input$/, /could apply more than 1000 subschemas/],
    [`${'['.repeat(490_000)}${']'.repeat(490_000)}`, /^\(definition\)$/, /is 980000 bytes/],
    [`name: bomb\nsteps: {a: {tool: search_relevant_information}}\nbig: &b ${'x'.repeat(1000)}\nlist: [${Array(99).fill('*b').join(', ')}]\n`, /^\(definition\)$/, /at most 50 aliases/],
    [{ name: 'huge', version: 100_000_000_000_000, steps: { a: search } }, /^version$/, /from 1 to 1000000000/],
  ];
  for (const [definition, place, message] of cases) {
    const started = performance.now();
    const result = (await client.callTool({ name: 'register_pipeline', arguments: { definition } })) as Failure;
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent?.error.code, 'invalid_pipeline');
    const problems = result.structuredContent?.error.details.problems ?? [];
    assert.ok(problems.some((p) => place.test(p.path) && message.test(p.message)), JSON.stringify(problems).slice(0, 400));
  }
  assert.equal((await stack.json('/v1/pipelines/oneofs')).status, 404);
});

test("a pipeline tool's arguments are checked by its own validator: a ReDoS pattern answers at once, a $id harms no other tool", async () => {
  const added = listingWhere((names) => names.includes('pipeline_patterned') && names.includes('pipeline_identified'));
  const register = (definition: Record<string, unknown>) => client.callTool({ name: 'register_pipeline', arguments: { definition } });
  assert.ok(!(await register({ name: 'patterned', input: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^(a+)+$' } } }, steps: { a: search } })).isError);
  assert.ok(!(await register({ name: 'identified', input: { $id: 'https://example.com/input.json', type: 'object', properties: { name: { type: 'string' } } }, steps: { a: search } })).isError);
  await added;
  const started = performance.now();
  const refused = (await client.callTool({ name: 'pipeline_patterned', arguments: { name: `${'a'.repeat(26)}!` } })) as Failure;
  assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent?.error.code, 'invalid_input', 'refused as the API refuses the same input');
  // Both use the bridge's validator no more: each tool still checks its own arguments.
  assert.equal(((await client.callTool({ name: 'pipeline_identified', arguments: { name: 7 } })) as Failure).isError, true);
  assert.equal(((await client.callTool({ name: 'pipeline_patterned', arguments: { name: 7 } })) as Failure).isError, true);
});

test("a deleted pipeline's tool is taken away, and connected clients are told", async () => {
  const added = listingWhere((names) => names.includes('pipeline_fleeting'));
  assert.equal((await stack.json('/v1/pipelines/fleeting', { method: 'PUT', body: JSON.stringify({ name: 'fleeting', steps: { a: search } }) })).status, 201);
  await added;
  const removed = listingWhere((names) => !names.includes('pipeline_fleeting'));
  assert.equal((await stack.json('/v1/pipelines/fleeting', { method: 'DELETE' })).status, 200);
  await removed;
  const called = (await client.callTool({ name: 'pipeline_fleeting', arguments: {} }).catch((error: unknown) => ({ isError: true, error }))) as { isError?: boolean };
  assert.equal(called.isError, true);
});
