/**
 * Flow control through the whole stack: priorities and fair shares between callers. The search
 * queue is paused while the work is queued, then one worker slot serves it, so the order in which
 * the runs' stages started (read from the runs' own records) is the order the queue gave.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient } from '@switchyard/redis';
import { registerPipeline, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const OTHER_KEY = 'other-key-0123456789';
let stack: TestStack;
let redis: Redis;
let search: Queue;

before(async () => {
  stack = await startTestStack({ label: 'flow-control', workerConcurrency: 1, apiKeys: [TEST_API_KEY, OTHER_KEY] });
  redis = createRedisClient(stack.redisUrl);
  search = new Queue('tool-search', { connection: redis, prefix: stack.prefix });
  await registerPipeline(stack, {
    name: 'one-search',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { look: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } },
  });
});
after(async () => {
  await search.close();
  await redis.quit();
  await stack.close();
});

async function startBatch(key: string, count: number, label: string, priority?: number): Promise<string[]> {
  const items = Array.from({ length: count }, (_, i) => ({ topic: `${label} ${i}` }));
  const { status, body } = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ pipeline: 'one-search', items, ...(priority ? { priority } : {}) }) });
  assert.equal(status, 202, JSON.stringify(body));
  return body.run_ids;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const waitingJobs = async () => (await search.getJobCounts('prioritized', 'wait')) as { prioritized: number; wait: number };

/** The runs in the order their search stage started (each run's own record). */
async function startOrder(runIds: readonly string[]): Promise<string[]> {
  const runs = await Promise.all(runIds.map((id) => stack.waitForRun(id, 60_000) as Promise<unknown> as Promise<RunBody>));
  for (const run of runs) assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const started = runs.map((run) => ({ id: run.run_id, at: Date.parse(run.stages[0]?.started_at ?? '') }));
  return started.sort((a, b) => a.at - b.at).map((s) => s.id);
}

test('single runs started after a batch go ahead of it, and a batch given priority 1 goes ahead of both', async () => {
  await search.pause();
  const batch = await startBatch(TEST_API_KEY, 20, 'nightly');
  await waitFor(async () => (await waitingJobs()).prioritized >= 20, "the batch's jobs queued");
  const singles = [await startRun(stack, 'one-search', { topic: 'asked by a person' }), await startRun(stack, 'one-search', { topic: 'asked by an agent' })];
  const urgent = await startBatch(TEST_API_KEY, 2, 'urgent', 1);
  await waitFor(async () => (await waitingJobs()).prioritized >= 24, 'every job queued');
  assert.equal((await waitingJobs()).wait, 0, 'no step job waits unprioritized (BullMQ would serve it before every prioritized one)');
  const view = await stack.json<{ flow?: { priority: number; key: string; waiting?: { reason: string; ahead?: number; ahead_higher_priority?: number } } }>(`/v1/runs/${batch[5]}`);
  assert.equal(view.body.flow?.priority, 6, "a batch's run is batch work by default");
  assert.match(view.body.flow?.key ?? '', /^key:/);
  assert.deepEqual(view.body.flow?.waiting, { reason: 'priority', queue: 'tool-search', ahead: 9, ahead_higher_priority: 4 }, 'it says it waits behind higher classes, and how many jobs are ahead');
  const single = await stack.json<{ flow?: { priority: number; waiting?: { reason: string } } }>(`/v1/runs/${singles[0]}`);
  assert.equal(single.body.flow?.priority, 3, 'a single run goes ahead of batch work by default');
  const first = await stack.json<{ flow?: { waiting?: { reason: string } } }>(`/v1/runs/${urgent[0]}`);
  assert.equal(first.body.flow?.waiting?.reason, 'starting', 'the first in line has nothing ahead');
  await search.resume();
  const order = await startOrder([...batch, ...singles, ...urgent]);
  assert.deepEqual(new Set(order.slice(0, 2)), new Set(urgent), `the priority-1 batch first: ${order.join(' ')}`);
  assert.deepEqual(new Set(order.slice(2, 4)), new Set(singles), 'then the single runs, before any of the batch');
});

test('two callers each with a batch waiting take turns, however much the first queued first', async () => {
  await search.pause();
  const first = await startBatch(TEST_API_KEY, 30, 'first caller');
  await waitFor(async () => (await waitingJobs()).prioritized >= 30, "the first caller's jobs queued");
  const second = await startBatch(OTHER_KEY, 10, 'second caller');
  await waitFor(async () => (await waitingJobs()).prioritized >= 40, "the second caller's jobs queued");
  const view = await stack.json<{ flow?: { key: string; waiting?: { reason: string } } }>(`/v1/runs/${second[3]}`);
  assert.equal(view.body.flow?.waiting?.reason, 'fair_share', 'a run behind work of its own class waits its share');
  await search.resume();
  const order = await startOrder([...first, ...second]);
  const secondOnes = new Set(second);
  const inFirstTwenty = order.slice(0, 20).filter((id) => secondOnes.has(id)).length;
  console.log(`fair shares: the second caller had ${inFirstTwenty} of the first 20 starts (its fair share 10), behind a backlog of 30`);
  assert.ok(inFirstTwenty >= 9, `the second caller's runs were served in turn, not after the first's 30: ${inFirstTwenty} of the first 20`);
});

test('a pipeline naming its fairness key shares the queue between key values, not callers, each with the weight its expression gives', async () => {
  await registerPipeline(stack, {
    name: 'tenant-search',
    input: { type: 'object', required: ['topic', 'tenant'], properties: { topic: { type: 'string' }, tenant: { type: 'string' } } },
    fairness: { key: 'input.tenant', weight: "input.tenant = 'globex' ? 2 : 1" },
    steps: { look: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } },
  });
  await search.pause();
  const items = [...Array.from({ length: 20 }, (_, i) => ({ topic: `a ${i}`, tenant: 'acme' })), ...Array.from({ length: 6 }, (_, i) => ({ topic: `b ${i}`, tenant: 'globex' }))];
  const { body } = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'tenant-search', items }) });
  await waitFor(async () => (await waitingJobs()).prioritized >= 26, 'the batch queued');
  const view = await stack.json<{ flow?: { key: string; weight?: number } }>(`/v1/runs/${body.run_ids[20]}`);
  assert.deepEqual(view.body.flow && { key: view.body.flow.key, weight: view.body.flow.weight }, { key: 'v:globex', weight: 2 });
  const acme = await stack.json<{ flow?: { key: string; weight?: number } }>(`/v1/runs/${body.run_ids[0]}`);
  assert.deepEqual(acme.body.flow && { key: acme.body.flow.key, weight: acme.body.flow.weight }, { key: 'v:acme', weight: undefined }, "each key's weight from the expression");
  await search.resume();
  const order = await startOrder(body.run_ids);
  const globex = new Set(body.run_ids.slice(20));
  const inFirstNine = order.slice(0, 9).filter((id) => globex.has(id)).length;
  assert.ok(inFirstNine >= 5, `globex's runs (weight 2) took two places for acme's one, though queued after all of acme's: ${inFirstNine} of the first 9`);
});
