/**
 * The inbox tools over MCP: list_inbox shows what runs wait for (filtered by pipeline, paged),
 * approve_call makes a waiting call with edited arguments or refuses it with a note, send_signal
 * completes a wait step; refusals are isError results with the API's codes, and a read key lists
 * but may not answer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { approvalScript, registerWaitingPipelines, WAITING_MODEL } from '@switchyard/orchestrator/testing/waiting-runs';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { ok, toolError, waitFor } from './testing/journey.js';

const READ_KEY = 'read-key-inbox-0123456789';
let model: ScriptedModel;
let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  model = await startScriptedModel({ script: approvalScript });
  stack = await startTestStack({ label: 'mcp-inbox', agents: { moreModels: { [WAITING_MODEL]: model.baseUrl } } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY, { key: READ_KEY, scopes: ['read'] }], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-inbox-test', level: 'silent' }) });
  await registerWaitingPipelines(stack);
});
after(async () => {
  await bridge?.close();
  await stack?.close();
  await model?.close();
});

async function connect(key = TEST_API_KEY): Promise<Client> {
  const client = new Client({ name: 'inbox-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

interface Item { run_id: string; kind: string; key: string; tool?: string; arguments?: Record<string, unknown>; reason?: string | null; schema: Record<string, unknown> | null }
const start = async (pipeline: string, input: unknown) => (await stack.json<{ run_id: string }>(`/v1/pipelines/${pipeline}/runs`, { method: 'POST', body: JSON.stringify(input) })).body.run_id;
const itemsOf = async (client: Client, runId: string, pipeline?: string) => ((await ok(client, 'list_inbox', { ...(pipeline ? { pipeline } : {}), limit: 200 })).items as Item[]).filter((i) => i.run_id === runId);
const waitingItem = (client: Client, runId: string) => waitFor(`run ${runId} in the inbox`, async () => (await itemsOf(client, runId))[0]);

test('list_inbox shows a waiting call with its tool, arguments, reason and schema; approve_call with edited arguments makes the call with them', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const runId = await start('inbox-agent', { topic: 'tides' });
  const item = await waitingItem(client, runId);
  assert.equal(item.kind, 'approval');
  assert.equal(item.tool, 'search_relevant_information');
  assert.deepEqual(item.arguments, { topic: 'tides', depth: 2 }, 'the arguments are the object approve_call takes');
  assert.equal(item.reason, 'I want to search for tides.');
  assert.equal((item.schema?.properties as Record<string, unknown> | undefined)?.topic !== undefined, true, "the form is the tool's schema");
  assert.equal((await itemsOf(client, runId, 'inbox-gate')).length, 0, 'another pipeline filters it out');
  assert.equal((await itemsOf(client, runId, 'inbox-agent')).length, 1);
  assert.deepEqual(((await ok(client, 'list_inbox', { run_id: runId })).items as Item[]).map((i) => i.run_id), [runId], 'run_id lists that run alone');

  const bad = await toolError(client, 'approve_call', { run_id: runId, call_id: item.key, approve: true, arguments: { topic: 'lighthouses', depth: 'deep' } }, 'invalid_arguments');
  assert.match(bad.message, /depth/);
  assert.equal((await ok(client, 'approve_call', { run_id: runId, call_id: item.key, approve: true, arguments: { topic: 'lighthouses', depth: 1 } })).status, 'recorded');
  await toolError(client, 'approve_call', { run_id: runId, call_id: item.key, approve: false }, 'approval_decided');
  const run = await stack.waitForRun(runId, 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.match(String(run.result), /^told: .*[Ll]ighthouses/);
  assert.equal((await itemsOf(client, runId)).length, 0);
});

test('approve_call with approve false refuses the call and the model reads the note', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const runId = await start('inbox-agent', { topic: 'storms' });
  const item = await waitingItem(client, runId);
  await ok(client, 'approve_call', { run_id: runId, call_id: item.key, approve: false, note: 'not during a storm' });
  const run = await stack.waitForRun(runId, 30_000);
  assert.equal(run.status, 'completed');
  assert.match(String(run.result), /not during a storm/);
});

test('send_signal refuses a payload that breaks the schema naming the field, completes the wait with a good one, and a second is a duplicate', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  // Its second wait keeps the run going after the first signal, so that a second signal meets a live run.
  const runId = await start('inbox-two-gates', {});
  const item = await waitingItem(client, runId);
  assert.equal(item.kind, 'signal');
  assert.equal(item.key, 'review');
  const bad = await toolError(client, 'send_signal', { run_id: runId, name: 'review', payload: { verdict: 'maybe' } }, 'invalid_signal');
  assert.match(bad.message, /verdict/);
  await toolError(client, 'send_signal', { run_id: runId, name: 'nothing', payload: {} }, 'signal_not_found');
  assert.equal((await ok(client, 'send_signal', { run_id: runId, name: 'review', payload: { verdict: 'accept', score: 4 }, idempotency_key: 'once' })).status, 'recorded');
  assert.equal((await ok(client, 'send_signal', { run_id: runId, name: 'review', payload: { verdict: 'reject' } })).status, 'duplicate');
  assert.equal((await ok(client, 'send_signal', { run_id: runId, name: 'release', payload: {} })).status, 'recorded');
  const run = await stack.waitForRun(runId, 30_000);
  assert.equal(run.status, 'completed');
  assert.deepEqual(run.result, { verdict: 'accept', score: 4 });
  await toolError(client, 'send_signal', { run_id: runId, name: 'review', payload: { verdict: 'accept' } }, 'run_finished');
});

test('an unknown run or call is an isError result, and cancel_run takes a waiting run out of the inbox', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  await toolError(client, 'approve_call', { run_id: `run_${'0'.repeat(32)}`, call_id: 'c1', approve: true }, 'run_not_found');
  const runId = await start('inbox-gate', {});
  await waitingItem(client, runId);
  await toolError(client, 'approve_call', { run_id: runId, call_id: 'c1', approve: true }, 'approval_not_found');
  await ok(client, 'cancel_run', { run_id: runId });
  assert.equal((await itemsOf(client, runId)).length, 0);
});

test('a read key lists the inbox but may not answer it', async (t) => {
  const client = await connect(READ_KEY);
  t.after(() => client.close());
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes('list_inbox'));
  assert.ok(!names.includes('approve_call') && !names.includes('send_signal'));
  const refused = await client.callTool({ name: 'send_signal', arguments: { run_id: `run_${'0'.repeat(32)}`, name: 'review', payload: {} } });
  assert.equal(refused.isError, true);
});

test('a signal payload past 1 MiB or 64 levels deep is refused with a clear error, and the bridge answers another session meanwhile', async (t) => {
  const client = await connect();
  const other = await connect();
  t.after(async () => {
    await client.close();
    await other.close();
  });
  const runId = await start('inbox-gate', {});
  await waitingItem(client, runId);
  let deep: unknown = 'bottom';
  for (let i = 0; i < 1000; i++) deep = { d: deep };
  const huge = { verdict: 'accept', note: 'x'.repeat(2 * 1024 * 1024) };
  const started = performance.now();
  const [large, nested, listed] = await Promise.all([
    toolError(client, 'send_signal', { run_id: runId, name: 'review', payload: huge }, 'answer_too_large'),
    // Over HTTP the bridge's body check refuses it first (the same 64 levels hold for stdio in answers.ts).
    assert.rejects(client.callTool({ name: 'send_signal', arguments: { run_id: runId, name: 'review', payload: { verdict: 'accept', note: deep } } }), /nested deeper than 64 levels/),
    ok(other, 'list_inbox', { run_id: runId }),
  ]);
  assert.match(large.message, /larger than 1048576 bytes/);
  assert.equal(nested, undefined);
  assert.equal((listed.items as Item[]).length, 1, 'another session was answered meanwhile');
  console.log(`# refusing a 2 MiB and a 1000-deep signal payload over MCP took ${Math.round(performance.now() - started)} ms`);
  assert.equal((await stack.json<{ status: string }>(`/v1/runs/${runId}`)).body.status, 'waiting', 'nothing was recorded');
  await ok(client, 'cancel_run', { run_id: runId });
});
