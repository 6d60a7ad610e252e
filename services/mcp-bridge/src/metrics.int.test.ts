/**
 * `/metrics` of every part of a running stack — the orchestrator, a worker process on its
 * METRICS_PORT, the bridge and the four tool services — read strictly before and after a batch,
 * a cancelled run, a story started over MCP and a federated tool call: the counters move by what was done, the gauges
 * follow the queues and clients, and no label names a run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@switchyard/logger';
import { labelValues, sampleSum, scrape, type MetricFamily } from '@switchyard/metrics/testing';
import { readSse, startTestStack, TEST_API_KEY, waitFor, WorkerProcesses, type TestStack } from '@switchyard/orchestrator/testing';
import { freePort } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { createBridgeMetrics } from './metrics.js';
import { federationSuite, type FederationSuite } from './suites/federation/index.js';
import { ok, startTask } from './testing/journey.js';

type Scrape = Map<string, MetricFamily>;
const STORY_CALLS = { search: 1, outline: 1, writing: 4, editing: 1 } as const;
const SERVICES = Object.keys(STORY_CALLS) as (keyof typeof STORY_CALLS)[];

let stack: TestStack;
let bridge: RunningBridge;
let federation: FederationSuite;
const workers = new WorkerProcesses(() => stack);
let workerUrl: string;

before(async () => {
  stack = await startTestStack({ label: 'metrics', inProcessWorkers: false });
  const logger = createLogger({ name: 'metrics-test', level: 'silent' });
  // As main.ts does: the metrics first, so that the federation's clients count their calls.
  const metrics = createBridgeMetrics();
  federation = await federationSuite({ config: stack.toolConfig, logger, client: { onCallEnd: metrics.tools.onCallEnd, onRetry: metrics.tools.onRetry } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], logger, extraSuites: [federation], metrics });
  workerUrl = `http://127.0.0.1:${await freePort()}`;
});
after(async () => {
  await workers.killAll();
  federation.close();
  await bridge.close();
  await stack.close();
});

const scrapeAll = async () => ({
  api: await scrape(stack.api.url),
  bridge: await scrape(bridge.url),
  tools: Object.fromEntries(await Promise.all(SERVICES.map(async (s) => [s, await scrape(stack.tools.services[s].url)] as const))) as Record<(typeof SERVICES)[number], Scrape>,
});
const moved = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) => sampleSum(after, name, labels) - sampleSum(before, name, labels);

test('every part serves /metrics that parses, and its counters move by what a batch, a cancellation, an MCP story and a federated call did', async () => {
  const before = await scrapeAll();
  for (const part of [before.api, before.bridge, ...Object.values(before.tools)]) assert.ok(part.has('process_cpu_seconds_total'), 'the default process metrics are served');
  assert.equal(sampleSum(before.api, 'switchyard_redis_up'), 1);
  assert.equal(sampleSum(before.bridge, 'switchyard_redis_up'), 1);

  // With no worker yet, what is started waits in its queue, as the orchestrator's gauges show.
  const batch = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a lamp that remembers' }, { topic: 'a bridge of reeds' }, { topic: 'a clock of tides' }] }) });
  assert.equal(batch.status, 202);
  const cancelled = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a story nobody waits for' }) });
  assert.equal((await stack.request(`/v1/runs/${cancelled.body.run_id}`, { method: 'DELETE' })).status, 200);
  const waiting = await scrape(stack.api.url);
  assert.equal(sampleSum(waiting, 'switchyard_queue_jobs', { queue: 'run-dispatch', state: 'waiting' }), 1, "the batch's dispatch job waits");
  assert.equal(sampleSum(waiting, 'switchyard_queue_jobs', { queue: 'tool-search', state: 'waiting' }), 1, "the cancelled run's first step waits");
  assert.equal(moved(before.api, waiting, 'switchyard_runs_ended_total', { pipeline: 'story', status: 'cancelled' }), 1);

  // The compactor removes a cancelled run's refused job once it compacts the run: not within this test.
  const worker = workers.start({ METRICS_PORT: new URL(workerUrl).port, COMPACT_AFTER_MS: '600000' });
  await waitFor(() => fetch(`${workerUrl}/health`).then((r) => r.status, () => 0), (status) => status === 200, 'the worker serves /health on METRICS_PORT', 60_000);
  assert.equal(worker.exitCode, null);
  // A new process: its counters start at zero, and it takes the waiting jobs as soon as it is ready.
  assert.ok((await scrape(workerUrl)).has('switchyard_stage_duration_seconds'));

  // An SSE client is counted while it is connected.
  const events = await stack.request(`/v1/batches/${batch.body.batch_id}/events`);
  assert.ok(sampleSum(await scrape(stack.api.url), 'switchyard_sse_clients') >= 1);
  const done = (await readSse(events)).at(-1);
  assert.equal(JSON.parse(done?.data ?? '{}').counts.completed, 3, done?.data);

  // One story started and waited for over MCP, as a task.
  const transport = new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } });
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  await client.connect(transport);
  const mcpRun = String((await ok(client, 'start_story', { topic: 'a kite over the salt flats' })).run_id);
  const waited = await client.experimental.tasks.getTaskResult(await startTask(client, 'wait_for_run', { run_id: mcpRun, timeout_s: 60 }), CallToolResultSchema);
  assert.equal(waited.structuredContent?.status, 'completed');
  await ok(client, 'search_relevant_information', { topic: 'salt flats', depth: 2 });
  const bridgeLive = await scrape(bridge.url);
  assert.equal(sampleSum(bridgeLive, 'switchyard_mcp_sessions'), 1);
  assert.equal(moved(before.bridge, bridgeLive, 'switchyard_tool_calls_total', { service: 'search', tool: 'search_relevant_information', mode: 'sync', outcome: 'ok' }), 1, 'a federated call is counted by the bridge');
  await client.close();

  const runIds = [...batch.body.run_ids, cancelled.body.run_id, mcpRun];
  const after = await scrapeAll();
  const workerAfter = await waitFor(() => scrape(workerUrl), (w) => sampleSum(w, 'switchyard_runs_ended_total', { pipeline: 'story', status: 'completed' }) === 4, 'the worker counted four completed runs');

  assert.equal(moved(before.api, after.api, 'switchyard_runs_started_total', { pipeline: 'story' }), 4, 'three batch runs and the cancelled one');
  assert.equal(moved(before.bridge, after.bridge, 'switchyard_runs_started_total', { pipeline: 'story' }), 1);
  assert.equal(moved(before.bridge, after.bridge, 'switchyard_mcp_sessions_opened_total'), 1);
  assert.equal(moved(before.bridge, after.bridge, 'switchyard_mcp_tasks_total', { status: 'working' }), 1);
  assert.equal(moved(before.bridge, after.bridge, 'switchyard_mcp_tasks_total', { status: 'completed' }), 1);
  // A run is completed inside its last job, so that job may be active a moment longer.
  const drained = (api: Scrape) => sampleSum(api, 'switchyard_queue_jobs', { state: 'waiting' }) + sampleSum(api, 'switchyard_queue_jobs', { state: 'active' }) === 0;
  await waitFor(() => scrape(stack.api.url), drained, 'every queue has drained');
  assert.equal(sampleSum(after.api, 'switchyard_queue_jobs', { queue: 'tool-search', state: 'failed' }), 1, "the cancelled run's step, refused by the worker");

  // The worker ran the four stories' stages and called each service for them.
  assert.equal(sampleSum(workerAfter, 'switchyard_stage_duration_seconds_count', { pipeline: 'story', stage: 'write', outcome: 'completed' }), 16, "a map's branches count as its step");
  for (const stage of ['search', 'outline', 'polish']) assert.equal(sampleSum(workerAfter, 'switchyard_stage_duration_seconds_count', { pipeline: 'story', stage, outcome: 'completed' }), 4, stage);
  for (const service of SERVICES) {
    assert.equal(sampleSum(workerAfter, 'switchyard_tool_calls_total', { service, outcome: 'ok' }), 4 * STORY_CALLS[service], `calls to ${service}`);
    assert.equal(sampleSum(workerAfter, 'switchyard_tool_breaker_state', { service, state: 'closed' }), 1);
    const federated = service === 'search' ? 1 : 0;
    assert.equal(moved(before.tools[service], after.tools[service], 'switchyard_tool_requests_total', { service, outcome: 'ok' }), 4 * STORY_CALLS[service] + federated, `requests ${service} answered`);
  }
  assert.equal(moved(before.tools.writing, after.tools.writing, 'switchyard_tool_requests_total', { tool: 'write_story_section', mode: 'stream' }), 16);
  assert.equal(moved(before.tools.editing, after.tools.editing, 'switchyard_tool_requests_total', { tool: 'polish_story', mode: 'async' }), 4);
  assert.equal(sampleSum(workerAfter, 'switchyard_redis_up'), 1);
  assert.ok(workerAfter.has('process_resident_memory_bytes'));

  const labels = [after.api, after.bridge, workerAfter, ...Object.values(after.tools)].flatMap(labelValues);
  const named = labels.filter((value) => /run_[0-9a-f]{32}|batch_[0-9a-f]{32}/.test(value) || runIds.includes(value));
  assert.deepEqual(named, [], 'no label value names a run or a batch');
});

test('a tool name a service does not have is counted as unknown, not as a series of its own', async () => {
  const url = stack.tools.services.search.url;
  const before = await scrape(url);
  const res = await fetch(`${url}/run/made-up-${Date.now()}`, { method: 'POST', headers: { authorization: `Bearer ${stack.toolConfig.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(res.status, 404);
  const after = await scrape(url);
  assert.equal(moved(before, after, 'switchyard_tool_requests_total', { service: 'search', tool: 'unknown', mode: 'sync', outcome: 'rejected' }), 1);
  assert.ok(!labelValues(after).some((value) => value.startsWith('made-up-')));
});
