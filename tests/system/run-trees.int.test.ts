/**
 * One request cannot grow an unbounded tree of runs, and one key cannot hold unbounded runs: a
 * pipeline mapping over four items that calls itself, and an agent offering its own pipeline as a
 * tool, 8 calls a turn, stop at RUN_MAX_DESCENDANTS child runs (`child_budget_exceeded`), and a key holding RUNS_MAX_LIVE_PER_KEY runs (queued and waiting
 * ones, child runs included) is answered 429 `too_many_runs`, over HTTP and MCP alike, while
 * another key's runs go on and the key gets its room back as its runs end.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Queue } from 'bullmq';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { keyId } from '@switchyard/http-kit';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from '../../services/mcp-bridge/src/http/serve.js';
import { finishedRun, registerPipeline, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const DESCENDANTS = 12;
const LIVE = 20;
const HOLDER_KEY = 'run-trees-holder-0123456789abcdef';
let stack: TestStack;
let redis: Redis;
let bridge: RunningBridge;
let model: ScriptedModel;

before(async () => {
  // Calls its own pipeline 8 times in its first turn; answers once it has read the results (or refusals).
  model = await startScriptedModel({ script: (request) => (request.messages.some((m) => m.role === 'tool') ? { content: 'done' } : { content: 'again', toolCalls: Array.from({ length: 8 }, () => ({ name: 'pipeline_rt-self', arguments: '{}' })) }) });
  stack = await startTestStack({ label: 'run-trees', limits: { descendantsPerRun: DESCENDANTS, liveRunsPerKey: LIVE }, apiKeys: [TEST_API_KEY, HOLDER_KEY], agents: { moreModels: { scripted: model.baseUrl } } });
  redis = createRedisClient(stack.redisUrl);
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY, HOLDER_KEY], toolServices: stack.toolConfig, limits: { liveRunsPerKey: LIVE }, logger: createLogger({ name: 'run-trees', level: 'silent' }) });
  await registerPipeline(stack, {
    name: 'rt-fan',
    input: { type: 'object', required: ['level'], properties: { level: { type: 'integer' } } },
    steps: { each: { map: '[1..4]', when: 'input.level < 4', pipeline: 'rt-fan', args: { level: 'input.level + 1' } } },
  });
  await registerPipeline(stack, { name: 'rt-gate', steps: { gate: { wait: { signal: 'go', timeout: '10m' } } } });
  // The second version offers the pipeline itself as the agent's tool (the first makes the name known).
  const self = (tools: unknown[]) => ({ name: 'rt-self', input: { type: 'object', properties: {} }, steps: { act: { agent: { model: 'scripted', prompt: "'go'", tools, max_turns: 2 } } }, output: 'steps.act' });
  await registerPipeline(stack, self([]));
  await registerPipeline(stack, self([{ pipeline: 'rt-self' }]));
});
after(async () => {
  await bridge?.close();
  redis?.disconnect();
  await stack?.close();
  await model?.close();
});

const held = async (key: string) => Number((await redis.hget(runKeys(stack.prefix).liveRunCounts, keyId(key))) ?? 0);
const as = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

test(`a pipeline that fans out into itself stops at ${DESCENDANTS} child runs with child_budget_exceeded, while a story beside it completes`, async () => {
  const story = (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lighthouse keeper' }) })).body.run_id;
  const rootId = await startRun(stack, 'rt-fan', { level: 0 });
  const root = await finishedRun(stack, rootId, 60_000);
  assert.equal(root.status, 'failed');
  assert.match(JSON.stringify(root.error), /child_budget_exceeded/, JSON.stringify(root.error));
  const tree = await redis.scard(runKeys(stack.prefix).tree(rootId));
  const fanRuns = (await stack.json<{ runs: unknown[] }>('/v1/runs?pipeline=rt-fan&limit=200')).body.runs.length;
  process.stdout.write(`# one request: ${tree} child runs admitted, ${fanRuns} rt-fan runs in all (unbounded: 340)\n`);
  assert.equal(tree, DESCENDANTS, 'the tree started as many children as it may, and no more');
  assert.ok(fanRuns <= DESCENDANTS + 1, `${fanRuns} runs`);
  assert.equal((await finishedRun(stack, story, 60_000)).status, 'completed', 'the story beside it was not harmed');
  // Every run of the tree has ended (a failed step cancels its children): the key holds none of them.
  await waitFor(() => held(TEST_API_KEY), (n) => n === 0, 'the key holds no run once the tree has ended', 30_000);
});

test(`an agent offering its own pipeline as a tool, 8 calls a turn, starts ${DESCENDANTS} child runs in all: the refused calls are answered to the model, and the run completes`, async () => {
  const rootId = await startRun(stack, 'rt-self', {});
  const root = await finishedRun(stack, rootId, 90_000);
  assert.equal(root.status, 'completed', JSON.stringify(root.error));
  const tree = await redis.scard(runKeys(stack.prefix).tree(rootId));
  process.stdout.write(`# an agent calling itself: ${tree} child runs admitted (unbounded: 8 + 64 + … at each of 5 levels)\n`);
  assert.equal(tree, DESCENDANTS);
  await waitFor(() => held(TEST_API_KEY), (n) => n === 0, 'the key holds no run once the tree has ended', 60_000);
});

test(`a key holding ${LIVE} runs is answered 429 too_many_runs over HTTP and MCP, another key is not, and the key gets room back as its runs end`, async () => {
  const batch = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', headers: as(HOLDER_KEY), body: JSON.stringify({ pipeline: 'rt-gate', items: Array.from({ length: LIVE }, () => ({})) }) });
  assert.equal(batch.status, 202, JSON.stringify(batch.body));
  assert.equal(await held(HOLDER_KEY), LIVE, 'queued runs count');
  const refused = await stack.json<{ error: { code: string; details: { limit: number; held: number; variable: string } } }>('/v1/pipelines/rt-gate/runs', { method: 'POST', headers: as(HOLDER_KEY), body: '{}' });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'too_many_runs');
  assert.deepEqual([refused.body.error.details.limit, refused.body.error.details.held, refused.body.error.details.variable], [LIVE, LIVE, 'RUNS_MAX_LIVE_PER_KEY']);
  assert.equal((await stack.json('/v1/stories', { method: 'POST', headers: as(HOLDER_KEY), body: JSON.stringify({ topic: 'x' }) })).status, 429, 'the story alias too');
  const client = new Client({ name: 'run-trees', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${HOLDER_KEY}` } } }));
  try {
    const result = await client.callTool({ name: 'start_story', arguments: { topic: 'x' } });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /too_many_runs/);
  } finally {
    await client.close();
  }
  assert.equal((await stack.json('/v1/pipelines/rt-gate/runs', { method: 'POST', body: '{}' })).status, 202, 'another key starts runs meanwhile');
  const [first] = batch.body.run_ids as [string];
  assert.equal((await stack.json(`/v1/runs/${first}`, { method: 'DELETE', headers: as(HOLDER_KEY) })).status, 200);
  assert.equal(await held(HOLDER_KEY), LIVE - 1, 'an ended run makes room');
  assert.equal((await stack.json('/v1/pipelines/rt-gate/runs', { method: 'POST', headers: as(HOLDER_KEY), body: '{}' })).status, 202);
  for (const runId of batch.body.run_ids) await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
});

test('a child run waiting for a signal, cancelled by a worker because a sibling step failed its parent, has its waiting job woken, not parked until its timeout', async () => {
  await registerPipeline(stack, { name: 'rt-doomed', steps: { sub: { pipeline: 'rt-gate' }, late: { wait: { signal: 'never', timeout: '1s' } } } });
  const parentId = await startRun(stack, 'rt-doomed', {});
  const childId = await waitFor(async () => (await stack.json<{ stages: { name: string; child_run?: string }[] }>(`/v1/runs/${parentId}`)).body.stages.find((s) => s.name === 'sub')?.child_run, Boolean, 'the child run starts');
  const record = await waitFor(() => redis.hget(runKeys(stack.prefix).run(childId as string), 'wait.signal.go'), Boolean, 'the child waits for its signal');
  const job = (JSON.parse(record as string) as { job: { queue: string; id: string } }).job;
  assert.equal((await finishedRun(stack, parentId, 60_000)).status, 'failed', 'the sibling timed out');
  assert.equal((await finishedRun(stack, childId as string, 60_000)).status, 'cancelled', 'the child is ended with its parent');
  const queue = new Queue(job.queue, { connection: redis, prefix: stack.prefix });
  try {
    // Parked until its 10-minute timeout, it would stay delayed; woken, it finds its run ended and fails as a refusal.
    await waitFor(async () => (await queue.getJob(job.id))?.getState(), (state) => state !== 'delayed', 'the child\'s waiting job is woken', 30_000);
  } finally {
    await queue.close();
  }
});
