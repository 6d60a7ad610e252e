import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient, isClusterUrl, keyspace, masters, scanKeys } from '@switchyard/redis';
import { readSse } from './testing/events.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'batches' });
});
after(() => stack.close());

async function countRunKeys(): Promise<number> {
  const redis = createRedisClient(stack.redisUrl);
  try {
    // A run's hash is `{prefix:run:<id>}`, its outputs and events that with a suffix.
    return (await scanKeys(redis, keyspace(stack.prefix).pattern)).filter((k) => /:run:run_[0-9a-f]+\}$/.test(k)).length;
  } finally {
    await redis.quit();
  }
}

test('a batch of 50 stories runs to the end, with counts, pages of runs and an event per finished run', async () => {
  const items = Array.from({ length: 50 }, (_, i) => ({ topic: `story number ${i + 1} about a river that forgets` }));
  const created = await stack.json<{ batch_id: string; run_ids: string[]; poll_url: string; events_url: string; total: number }>('/v1/batches', {
    method: 'POST',
    body: JSON.stringify({ items, defaults: { style: 'concise', depth: 2 } }),
  });
  assert.equal(created.status, 202);
  assert.equal(created.body.run_ids.length, 50);
  assert.equal(created.headers.get('location'), created.body.poll_url);

  const events = await readSse(await stack.request(created.body.events_url));
  const finished = events.filter((e) => e.event === 'run').map((e) => JSON.parse(e.data) as { run_id: string; status: string });
  assert.equal(finished.length, 50);
  assert.deepEqual(new Set(finished.map((e) => e.run_id)), new Set(created.body.run_ids));
  const failedRun = finished.find((e) => e.status !== 'completed');
  if (failedRun) assert.fail(`run ${failedRun.run_id} ended ${failedRun.status}: ${JSON.stringify((await stack.json<{ error: unknown }>(`/v1/runs/${failedRun.run_id}`)).body.error)}`);
  assert.equal(events.at(-1)?.event, 'done');
  assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').counts.completed, 50);

  const page = await stack.json<{ status: string; total: number; counts: Record<string, number>; runs: { run_id: string; status: string }[] }>(`${created.body.poll_url}?offset=40&limit=20`);
  assert.equal(page.body.status, 'done');
  assert.deepEqual(page.body.counts, { queued: 0, running: 0, waiting: 0, completed: 50, failed: 0, cancelled: 0 });
  assert.deepEqual(page.body.runs.map((r) => r.run_id), created.body.run_ids.slice(40));
  const one = await stack.json<{ request: { style: string; depth: number; topic: string }; batch_id: string }>(`/v1/runs/${created.body.run_ids[3]}`);
  assert.deepEqual(one.body.request, { topic: 'story number 4 about a river that forgets', style: 'concise', depth: 2 });
  assert.equal(one.body.batch_id, created.body.batch_id);
  if (isClusterUrl(stack.redisUrl)) await assertSpreadOverMasters(created.body.run_ids);
});

/**
 * On a Redis Cluster: each run's hash and events are on the one master that holds the run's slot,
 * and the batch's runs are on every master (asked of each master itself, not computed).
 */
async function assertSpreadOverMasters(runIds: readonly string[]): Promise<void> {
  const redis = createRedisClient(stack.redisUrl);
  const nodes = await masters(redis);
  assert.equal(nodes.length, 3);
  const keys = runKeys(stack.prefix);
  // What each master holds, as it says itself (a SCAN of one node lists only its own keys).
  const held = await Promise.all(nodes.map(async (node) => new Set(await scanKeys(node, keyspace(stack.prefix).pattern))));
  const runsPerMaster = held.map((own) => runIds.filter((id) => own.has(keys.run(id))).length);
  for (const id of runIds) {
    const home = held.findIndex((own) => own.has(keys.run(id)));
    assert.ok(home >= 0, `run ${id} is on a master`);
    assert.ok(held[home]?.has(keys.events(id)), `run ${id}: its events are on its hash's master`);
  }
  assert.equal(runsPerMaster.reduce((a, b) => a + b, 0), runIds.length, 'each run is on exactly one master');
  assert.ok(runsPerMaster.every((count) => count > 0), `the batch's runs are on every master: ${runsPerMaster.join(', ')}`);
  process.stdout.write(`# a batch's runs per master: ${runsPerMaster.join(', ')}\n`);
  await redis.quit();
}

test('the same Idempotency-Key and body return the same run; another body with that key is refused with 409', async () => {
  const before = await countRunKeys();
  const headers = { 'Idempotency-Key': 'order-7781' };
  const body = JSON.stringify({ topic: 'a locksmith who opens seasons' });
  const first = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', headers, body });
  const again = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', headers, body });
  assert.equal(first.status, 202);
  assert.equal(again.status, 202);
  assert.equal(again.body.run_id, first.body.run_id);
  const other = await stack.json<{ error: { code: string } }>('/v1/stories', { method: 'POST', headers, body: JSON.stringify({ topic: 'something else' }) });
  assert.equal(other.status, 409);
  assert.equal(other.body.error.code, 'idempotency_conflict');
  assert.equal(await countRunKeys(), before + 1, 'exactly one run was created');
  await stack.waitForRun(first.body.run_id);
});

test('a batch repeated with its Idempotency-Key returns the same batch and run ids', async () => {
  const headers = { 'Idempotency-Key': 'batch-42' };
  const body = JSON.stringify({ items: [{ topic: 'one small thing' }, { topic: 'another small thing' }] });
  const first = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', headers, body });
  const again = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', headers, body });
  assert.equal(again.body.batch_id, first.body.batch_id);
  assert.deepEqual(again.body.run_ids, first.body.run_ids);
  await readSse(await stack.request(`/v1/batches/${first.body.batch_id}/events`));
});
