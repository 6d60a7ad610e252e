/**
 * A run's status change is two steps on a Redis Cluster (the run's slot, then the shared one):
 * the second must be harmless applied twice, and finishable after a crash between the two.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { BatchStore } from './batch-store.js';
import { readEvents } from './events.js';
import { RunStore } from './run-store.js';
import { runScripts } from './stage-scripts.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

async function newBatch(label: string) {
  const store = new RunStore({ redis, prefix: uniquePrefix(label) });
  const { batchId, runIds } = await new BatchStore(store).createBatch({ runs: [1, 2].map(() => ({ kind: 'story', request: { topic: 't' }, stages: ['search'] })) });
  const batchEvents = async () => (await readEvents({ redis, key: store.keys.batchEvents(batchId), after: '0', count: 100 })).map((e) => `${e.type}:${e.data}`);
  const counts = async () => redis.hgetall(store.keys.batch(batchId));
  return { store, batchId, runIds: runIds as [string, string], batchEvents, counts };
}

test("a run's shared-slot step applied again, or its transition retried, counts the run once", async () => {
  const { store, batchId, runIds, batchEvents, counts } = await newBatch('settle-twice');
  const [first] = runIds;
  await store.transition({ runId: first, from: ['queued'], to: 'running', batchId });
  await store.transition({ runId: first, from: ['running'], to: 'completed', batchId });
  // The shared step sent again, and the whole transition retried once the run has ended: neither counts it twice.
  await store.settleEndedRuns([{ id: first, status: 'completed', batchId }]);
  assert.equal((await store.transition({ runId: first, from: ['running'], to: 'completed', batchId })).moved, false);
  await store.settleEndedRuns([{ id: first, status: 'completed', batchId }]);
  const after = await counts();
  assert.deepEqual([after['n:queued'], after['n:running'], after['n:completed'], after.finished], ['1', '0', '1', '1']);
  assert.equal((await batchEvents()).filter((e) => e.startsWith('run:')).length, 1);
  assert.equal(await redis.zscore(store.keys.activeRuns, first), null);
});

test('a run that ended but whose shared-slot step was cut short is finished by settleEndedRuns (the reconciler), ending its batch once', async () => {
  const { store, batchId, runIds, batchEvents, counts } = await newBatch('settle-crash');
  const [first, second] = runIds;
  await store.transition({ runId: first, from: ['queued'], to: 'failed', batchId });
  // The second run's own step only, as a process that died before the shared step leaves it.
  const transition = runScripts(redis).transition;
  await transition(3, store.keys.run(second), store.keys.events(second), store.keys.outputs(second), 'completed', 'queued', new Date().toISOString(), '', '{}', '1', '60');
  assert.notEqual(await redis.zscore(store.keys.activeRuns, second), null, 'still listed as active');
  assert.equal((await counts()).finished, '1');

  const [seen] = await store.getActiveRuns([second]);
  assert.equal(seen?.status, 'completed');
  await store.settleEndedRuns([seen!, seen!]);
  assert.equal(await redis.zscore(store.keys.activeRuns, second), null);
  const done = await counts();
  assert.deepEqual([done['n:queued'], done['n:completed'], done['n:failed'], done.finished], ['0', '1', '1', '2']);
  const events = await batchEvents();
  assert.equal(events.filter((e) => e.startsWith('done:')).length, 1, 'the batch ends once');
  assert.ok(events.at(-1)?.includes('"completed":1'));
});

test("a run's agents' cost reaches its batch once as it ends: through its own end, and through the reconciler's settle after a crash between the two steps, retried or not", async () => {
  const { store, batchId, runIds, counts } = await newBatch('settle-cost');
  const [first, second] = runIds;
  // What the agents' recorded turns left in each run (agent-transcript.ts): nano-dollars.
  await redis.hset(store.keys.run(first), 'cost_nanos', '7500000');
  await redis.hset(store.keys.run(second), 'cost_nanos', '2500000');
  await store.transition({ runId: first, from: ['queued'], to: 'completed', batchId });
  await store.settleEndedRuns([{ id: first, status: 'completed', batchId }]);
  assert.equal((await store.transition({ runId: first, from: ['queued'], to: 'completed', batchId })).moved, false);
  assert.equal((await counts()).cost_nanos, '7500000', 'the first run counted once');
  // The second run's own step only, then the reconciler's settle, twice.
  await runScripts(redis).transition(3, store.keys.run(second), store.keys.events(second), store.keys.outputs(second), 'failed', 'queued', new Date().toISOString(), '', '', '1', '60');
  const [seen] = await store.getActiveRuns([second]);
  await store.settleEndedRuns([seen!, seen!]);
  assert.equal((await counts()).cost_nanos, '10000000');
  const view = await new BatchStore(store).getBatch(batchId, { offset: 0, limit: 10 });
  assert.equal(view?.cost_usd, 0.01);
});
