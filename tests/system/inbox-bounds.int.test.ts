/**
 * The inbox is bounded in bytes, not only in count: a model that asks for 32 calls in a turn with
 * a 200 KB reason makes a turn whose calls wait for approval. The reason is kept once (the turn's
 * reply), not copied into each call's record; listings (the API's `GET /v1/inbox`, the bridge's
 * `list_inbox`) carry its first 500 characters and stop within the listing budget, and the item's
 * own URL gives it whole.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { InboxItem, InboxList } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from '../../services/mcp-bridge/src/http/serve.js';
import { registerPipeline, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const CALLS = 32;
const REASON = `I must look everything up. ${'because '.repeat(25_000)}`;
const PAGE_BYTES = 64 * 1024;
let model: ScriptedModel;
let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  model = await startScriptedModel({
    script: (request) => (request.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { content: REASON, toolCalls: Array.from({ length: CALLS }, (_, i) => ({ name: 'search_relevant_information', arguments: JSON.stringify({ topic: `t${i}`, depth: 1 }) })) }),
  });
  stack = await startTestStack({ label: 'inbox-bounds', agents: { moreModels: { scripted: model.baseUrl } }, limits: { listPageBytes: PAGE_BYTES } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, limits: { listPageBytes: PAGE_BYTES }, logger: createLogger({ name: 'inbox-bounds', level: 'silent' }) });
  await registerPipeline(stack, {
    name: 'ib-agent',
    steps: { act: { agent: { model: 'scripted', prompt: "'go'", tools: [{ tool: 'search_relevant_information', approval: 'required' }], max_turns: 2 } } },
    output: 'steps.act',
  });
});
after(async () => {
  await bridge?.close();
  await stack?.close();
  await model?.close();
});

test(`${CALLS} calls waiting with a ${Math.round(REASON.length / 1000)} KB reason: listed within the byte budget, each reason cut to 500 characters, kept once, and whole at the item's own URL`, async () => {
  const runIds = [await startRun(stack, 'ib-agent', {}), await startRun(stack, 'ib-agent', {})];
  for (const runId of runIds) await waitFor(() => stack.json<InboxList>(`/v1/inbox?run_id=${runId}&limit=200`), (page) => page.body.total === CALLS, `${runId} waits for its ${CALLS} calls`, 300_000);
  const started = performance.now();
  const response = await stack.request('/v1/inbox?limit=200');
  const text = await response.text();
  const took = performance.now() - started;
  const page = JSON.parse(text) as InboxList;
  process.stdout.write(`# GET /v1/inbox: ${text.length} bytes, ${page.items.length} of ${page.total} items, ${took.toFixed(0)} ms\n`);
  assert.equal(page.total, 2 * CALLS);
  assert.ok(text.length <= PAGE_BYTES + 1024, `${text.length} bytes`);
  assert.equal(page.truncated, page.items.length < page.total);
  for (const item of page.items) {
    assert.ok((item.reason ?? '').length <= 500, 'the reason is cut in the listing');
    assert.equal(item.reason_truncated, true);
  }
  const [first] = page.items as [InboxItem];
  const whole = await stack.json<InboxItem>(first.answer_url);
  assert.equal(whole.status, 200);
  assert.equal(whole.body.reason, REASON, "the item's own URL gives the reason whole");
  // Kept once: each call's record holds the reason's start, not a copy of it.
  const redis = createRedisClient(stack.redisUrl);
  try {
    const key = runKeys(stack.prefix).run(first.run_id);
    const sizes: number[] = [];
    const fields = (await redis.hkeys(key)).filter((field) => field.startsWith('wait.approval.'));
    assert.equal(fields.length, CALLS);
    for (const field of fields) sizes.push(await redis.hstrlen(key, field));
    assert.ok(Math.max(...sizes) < 4096, `each wait record is small (${Math.max(...sizes)} bytes)`);
  } finally {
    redis.disconnect();
  }
  const client = new Client({ name: 'inbox-bounds', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  try {
    const listed = await client.callTool({ name: 'list_inbox', arguments: { limit: 200 } });
    const bytes = JSON.stringify(listed).length;
    process.stdout.write(`# MCP list_inbox: ${bytes} bytes\n`);
    assert.ok(bytes <= 3 * PAGE_BYTES, `${bytes} bytes (its text and its structured content)`);
  } finally {
    await client.close();
  }
  for (const runId of runIds) await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
});
