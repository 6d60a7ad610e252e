/**
 * A story started by an agent over MCP is traced like one started over the API: its MCP request
 * is the root, its step jobs and tool calls are in the tree under it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { SpanKind } from '@switchyard/telemetry';
import { parentSpanId, startTestTracing, type ReadableSpan, type TestTracing } from '@switchyard/telemetry/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { ok } from './testing/journey.js';

let tracing: TestTracing;
let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  tracing = startTestTracing();
  stack = await startTestStack({ label: 'mcp-tracing' });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], logger: createLogger({ name: 'mcp-tracing-test', level: 'silent' }) });
});
after(async () => {
  await bridge.close();
  await stack.close();
  await tracing.close();
});

test('a story started with start_story over MCP is one trace whose only root is the MCP request', async (t) => {
  const client = new Client({ name: 'tracing-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  t.after(() => client.close());
  const { run_id: runId } = (await ok(client, 'start_story', { topic: 'a tram line' })) as { run_id: string };
  const run = await stack.waitForRun(String(runId));
  assert.equal(run.status, 'completed');
  const jobIds = (run.stages as { name: string }[]).map((s) => `${runId}.${s.name}`);

  const isJob = (s: ReadableSpan) => s.kind === SpanKind.CONSUMER && jobIds.includes(String(s.attributes['bullmq.job.id']));
  const deadline = Date.now() + 10_000;
  while (tracing.spans().filter(isJob).length < jobIds.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const spans = tracing.spans();
  const jobs = spans.filter(isJob);
  assert.equal(jobs.length, jobIds.length, 'a span per step job');
  const traceId = jobs[0]?.spanContext().traceId;
  assert.ok(jobs.every((s) => s.spanContext().traceId === traceId), 'every job of the run in one trace');
  const tree = spans.filter((s) => s.spanContext().traceId === traceId);
  const ids = new Set(tree.map((s) => s.spanContext().spanId));
  const roots = tree.filter((s) => !ids.has(parentSpanId(s) ?? ''));
  assert.deepEqual(roots.map((s) => [s.name, s.kind, parentSpanId(s)]), [['POST /mcp', SpanKind.SERVER, undefined]]);
  assert.equal(tree.filter((s) => s.kind === SpanKind.CLIENT && s.attributes['switchyard.tool.name']).length, jobIds.length, 'a client span per tool call');
});
