/**
 * Scopes over MCP: a session sees in `tools/list` only the tools its key's scopes allow
 * (tool-scopes.ts), a call to any other is an `isError` result with `insufficient_scope` that
 * does nothing, a session taken up by another replica keeps its key's scopes, and wrong keys at
 * `/mcp` are counted per client address as at the API.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { apiKeyList, type Scope } from '@switchyard/config';
import { createLogger } from '@switchyard/logger';
import { sendFrom, startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { codeIntelSuite } from './suites/code-intel/index.js';
import { federationSuite, type FederationSuite } from './suites/federation/index.js';
import { SUITE_SCOPES, toolScope } from './tool-scopes.js';

const KEYS: Record<Scope, string> = { read: 'mcp-reader-0123', run: 'mcp-runner-0123', admin: 'mcp-admin-0123' };
const API_KEYS = apiKeyList.parse(`${TEST_API_KEY},${KEYS.read}:read,${KEYS.run}:run,${KEYS.admin}:admin`);
const HELD: Record<Scope, Scope[]> = { read: ['read'], run: ['read', 'run'], admin: ['read', 'admin'] };
const logger = createLogger({ name: 'mcp-scopes', level: 'silent' });

let stack: TestStack;
let bridge: RunningBridge;
let federation: FederationSuite;
let codeRoot: string;

before(async () => {
  stack = await startTestStack({ label: 'mcp-scopes', inProcessWorkers: false });
  federation = await federationSuite({ config: stack.toolConfig, logger });
  codeRoot = mkdtempSync(path.join(os.tmpdir(), 'mcp-scopes-code-'));
  const extraSuites = [federation, codeIntelSuite({ root: codeRoot })];
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: API_KEYS, toolServices: stack.toolConfig, extraSuites, logger });
  // The shipped pipelines' tools are added once the pipelines suite has read them: wait, so that every listing below is complete.
  const deadline = Date.now() + 10_000;
  while (!['pipeline_story', 'pipeline_aceflow'].every((name) => bridge.deps.tools.get(name))) {
    assert.ok(Date.now() < deadline, 'the shipped pipelines became tools');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
after(async () => {
  await bridge.close();
  federation.close();
  await stack.close();
  rmSync(codeRoot, { recursive: true, force: true });
});

async function connect(key: string, options: { url?: string; sessionId?: string } = {}): Promise<Client> {
  const client = new Client({ name: 'scopes-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${options.url ?? bridge.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } }, ...(options.sessionId ? { sessionId: options.sessionId } : {}) });
  await client.connect(transport);
  return client;
}

const entries = () => bridge.deps.tools.entries();
const namesFor = (held: readonly Scope[]) => entries().filter((e) => held.includes(toolScope(e.suite, e.tool.name))).map((e) => e.tool.name).sort();

test('the scope table places every suite the bridge serves, and gives read only to tools that only read', () => {
  const suites = new Set(entries().map((e) => e.suite));
  for (const suite of ['jobs', 'pipelines', 'aceflow', 'supervisor', 'module-docs', 'federation', 'code-intel']) assert.ok(suites.has(suite), `${suite} is served here`);
  for (const suite of suites) assert.ok(SUITE_SCOPES[suite], `suite ${suite} has a scope in tool-scopes.ts`);
  for (const { suite, tool } of entries()) {
    if (toolScope(suite, tool.name) === 'read') assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} needs only read, so it must only read`);
  }
  assert.equal(toolScope('jobs', 'start_story'), 'run');
  assert.equal(toolScope('pipelines', 'register_pipeline'), 'admin');
  assert.equal(toolScope('pipelines', 'pipeline_anything'), 'run');
  assert.equal(toolScope('module-docs', 'add_module'), 'run');
  assert.equal(toolScope('a-suite-not-placed-yet', 'tool'), 'admin', 'an unknown suite is shown to unrestricted keys only');
});

test('tools/list shows each key the tools of its scopes: read sees reading tools only, run no register_pipeline, admin no start_story', async () => {
  const expected: Record<Scope, string[]> = { read: namesFor(HELD.read), run: namesFor(HELD.run), admin: namesFor(HELD.admin) };
  assert.ok(expected.read.includes('get_run') && expected.read.includes('ci_search') && expected.read.includes('smart_search'));
  for (const hidden of ['start_story', 'cancel_run', 'register_pipeline', 'aceflow_stage', 'login_with_project', 'add_module', 'search_relevant_information']) assert.ok(!expected.read.includes(hidden), hidden);
  assert.ok(expected.run.includes('start_story') && expected.run.includes('aceflow_stage') && !expected.run.includes('register_pipeline'));
  assert.ok(expected.admin.includes('register_pipeline') && !expected.admin.includes('start_story'));
  for (const [kind, key] of Object.entries(KEYS) as [Scope, string][]) {
    const client = await connect(key);
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), expected[kind], `${kind} key`);
    } finally {
      await client.close();
    }
  }
  const full = await connect(TEST_API_KEY);
  assert.equal((await full.listTools()).tools.length, entries().length, 'a key without scopes sees every tool');
  await full.close();
});

function refusal(result: unknown): { code: string; message: string; details: { tool: string; required_scope: string; scopes: string[] } } {
  const call = result as CallToolResult;
  assert.equal(call.isError, true, JSON.stringify(call));
  const [block] = call.content;
  assert.equal(block?.type, 'text');
  return (JSON.parse(block?.type === 'text' ? block.text : '{}') as { error: ReturnType<typeof refusal> }).error;
}

test('a tool beyond the key\'s scopes cannot be called either: isError insufficient_scope naming the scope, and nothing happens', async (t) => {
  const runner = await connect(KEYS.run);
  const reader = await connect(KEYS.read);
  t.after(async () => {
    await runner.close();
    await reader.close();
  });
  const definition = { name: 'scoped-out', steps: { s: { tool: 'search_relevant_information', args: { topic: "'x'" } } }, output: 'steps.s' };
  const refusedRegistration = refusal(await runner.callTool({ name: 'register_pipeline', arguments: { definition } }));
  assert.equal(refusedRegistration.code, 'insufficient_scope');
  assert.match(refusedRegistration.message, /register_pipeline needs the 'admin' scope/);
  assert.deepEqual(refusedRegistration.details, { tool: 'register_pipeline', required_scope: 'admin', scopes: ['read', 'run'] });
  assert.equal(await bridge.deps.pipelines.get('scoped-out'), null, 'nothing was registered');

  const runsBefore = (await stack.json<{ runs: unknown[] }>('/v1/runs?limit=100')).body.runs.length;
  for (const name of ['start_story', 'cancel_run', 'aceflow_stage', 'add_module', 'search_relevant_information']) {
    const refused = refusal(await reader.callTool({ name, arguments: {} }));
    assert.equal(refused.code, 'insufficient_scope', name);
    assert.equal(refused.details.required_scope, 'run', name);
  }
  assert.equal((await stack.json<{ runs: unknown[] }>('/v1/runs?limit=100')).body.runs.length, runsBefore, 'no run was started');
  const listed = (await reader.callTool({ name: 'list_runs', arguments: {} })) as CallToolResult;
  assert.notEqual(listed.isError, true, 'a reading tool is called');
});

test('a session taken up by another replica keeps its key\'s scopes', async (t) => {
  const replica = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: API_KEYS, toolServices: stack.toolConfig, logger });
  const first = await connect(KEYS.read);
  t.after(async () => {
    await first.close();
    await replica.close();
  });
  const sessionId = (first.transport as StreamableHTTPClientTransport).sessionId;
  assert.ok(sessionId);
  const resumed = await connect(KEYS.read, { url: replica.url, sessionId });
  const names = (await resumed.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('get_run') && !names.includes('start_story'), names.join(', '));
  assert.equal(refusal(await resumed.callTool({ name: 'start_story', arguments: { topic: 'x' } })).code, 'insufficient_scope');
});

test('wrong keys at /mcp from one address are refused 429 with Retry-After past the limit, while the right key, from that address or another, connects', async () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'guess', version: '1' } } };
  const post = (from: string, key: string) => sendFrom(bridge.url, '/mcp', { from, method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream' }, body: initialize });
  for (let i = 0; i < 10; i += 1) assert.equal((await post('127.0.0.7', `wrong-${i}`)).status, 401, `guess ${i + 1}`);
  const refused = await post('127.0.0.7', 'wrong-again');
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error?.code, 'too_many_failed_keys');
  assert.ok(Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60, refused.retryAfter);
  // Behind a proxy every client shares its address: one client's guesses must not lock the others out.
  assert.equal((await post('127.0.0.7', KEYS.read)).status, 200, 'the right key from the guessing address');
  const client = await connect(KEYS.read);
  assert.ok((await client.listTools()).tools.length > 0);
  await client.close();
});
