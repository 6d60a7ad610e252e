/**
 * The production build: `npm run build` compiles every workspace, and the stack runs from that
 * JavaScript alone (no tsx in any service process), as the container image runs it, the MCP
 * bridge included.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createSwitchyardClient } from '@switchyard/client';
import { freePort, testRedis, uniquePrefix } from '@switchyard/redis';
import { Children } from './processes.js';
import { buildCompiled, compiledEntry, nodeArguments } from './runtime.js';
import { startStack, type Stack } from './stack.js';

const children = new Children();
let stack: Stack;

before(async () => {
  buildCompiled();
  const redis = await testRedis();
  const say = () => undefined;
  // Ports of its own: the default 8080 and 8090 may be taken by another launch of this test run.
  const [port, mcpPort] = await Promise.all([freePort(), freePort()]);
  stack = await startStack({ redisUrl: redis.url, env: { QUEUE_PREFIX: uniquePrefix('compiled'), LOG_LEVEL: 'info', MCP_PORT: String(mcpPort) }, workers: 1, port, children, say, runtime: 'compiled', mcp: true });
});
after(() => children.stopAll());

test('a compiled service is started with plain node on its dist/ entry, the workspace packages resolved to their dist/', () => {
  const args = nodeArguments({ entry: 'services/workers/src/main.ts', runtime: 'compiled', exitWithParent: false });
  assert.deepEqual(args.slice(0, 1), ['--conditions=switchyard-dist']);
  assert.match(args.at(-1) ?? '', /services\/workers\/dist\/main\.js$/);
  assert.ok(!args.includes('tsx'));
  assert.equal(compiledEntry('services/orchestrator/src/main.ts'), 'services/orchestrator/dist/main.js');
  assert.throws(() => compiledEntry('scripts/main.mjs'), /not a TypeScript source under src/);
});

test('the stack built by npm run build runs a story to the end with no TypeScript loader in any process', async () => {
  for (const child of children.all) {
    const cmdline = readFileSync(`/proc/${child.process.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes('--conditions=switchyard-dist'), `${child.name}: ${cmdline.join(' ')}`);
    assert.ok(!cmdline.some((arg) => /tsx/.test(arg)), `${child.name} runs without tsx: ${cmdline.join(' ')}`);
  }
  const client = createSwitchyardClient({ url: stack.apiUrl, key: stack.apiKey });
  const { run_ids: [runId] } = await client.startBatch({ items: [{ topic: 'a lock keeper who counts the boats' }] });
  assert.ok(runId);
  await client.followRun(runId, () => undefined, { signal: AbortSignal.timeout(60_000) });
  const run = await client.getRun(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.ok(((run.result as { word_count?: number } | null)?.word_count ?? 0) > 100);
});

test('the compiled orchestrator serves the dashboard, its files read from outside src/', async () => {
  const page = await fetch(`${stack.apiUrl}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<html/i);
  assert.equal((await fetch(`${stack.apiUrl}/ui/app.js`)).status, 200);
});

test("the compiled MCP bridge answers with the stack's key, over the stack's pipelines and tool services", async () => {
  assert.ok(stack.mcpUrl);
  const refused = await fetch(stack.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.equal(refused.status, 401);
  const client = new Client({ name: 'launcher-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${stack.apiKey}` } } }));
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes('pipeline_story') && names.includes('register_pipeline'), names.join(', '));
    // Registration reaches the stack's own tool services (their ports and key are this launch's).
    const definition = { name: 'launcher-check', steps: { find: { tool: 'search_relevant_information', args: { topic: "'a harbour'" } } } };
    const registered = await client.callTool({ name: 'register_pipeline', arguments: { definition } });
    assert.notEqual(registered.isError, true, JSON.stringify(registered.structuredContent));
  } finally {
    await client.close();
  }
});
