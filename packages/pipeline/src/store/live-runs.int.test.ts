/**
 * The runs a key holds are counted by set membership kept in the scripts that admit and end runs,
 * so the count stays right when a command is sent twice, a run ends twice, or a process dies
 * between admitting a run and writing it (the sweep finds the admission and releases it).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { BatchStore } from './batch-store.js';
import { TooManyRunsError } from './live-runs.js';
import { RunStore } from './run-store.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

const storeOf = (label: string, liveRunsPerKey = 3) => new RunStore({ redis, prefix: uniquePrefix(label), limits: { liveRunsPerKey } });
const run = (owner: string) => ({ kind: 'story', request: { topic: 't' }, stages: ['search'], owner });

test('a key holds at most its bound of runs: past it nothing is written, and a run that ends makes room once, however often it ends', async () => {
  const store = storeOf('live-bound');
  const ids = [await store.createRun(run('key-a')), await store.createRun(run('key-a')), await store.createRun(run('key-a'))];
  await assert.rejects(store.createRun(run('key-a')), (error: unknown) => error instanceof TooManyRunsError && error.details.held === 3 && error.details.limit === 3);
  assert.equal(await redis.zcard(store.keys.runIndex), 3, 'the refused run was not written');
  await assert.rejects(new BatchStore(store).createBatch({ runs: [run('key-a')] }), TooManyRunsError, 'nor a batch');
  assert.equal(await redis.zcard(store.keys.batchIndex), 0, 'the refused batch left no trace');
  assert.ok(await store.createRun(run('key-b')), 'another key is not held back');
  const [first] = ids as [string];
  await store.transition({ runId: first, from: ['queued'], to: 'cancelled' });
  // The end applied again (the reconciler's settle step after a crash) releases nothing more.
  await store.settleEndedRuns([{ id: first, status: 'cancelled', batchId: null }]);
  assert.equal(await store.liveRuns.held('key-a'), 2);
  await store.createRun(run('key-a'));
  await assert.rejects(store.createRun(run('key-a')), TooManyRunsError);
});

test('an admission sent twice counts once, and a batch is admitted whole or not at all', async () => {
  const store = storeOf('live-twice', 4);
  assert.deepEqual(await store.liveRuns.admit('key-a', ['run_1', 'run_2'], 4), { admitted: true, held: 2 });
  assert.deepEqual(await store.liveRuns.admit('key-a', ['run_1', 'run_2'], 4), { admitted: true, held: 2 });
  assert.deepEqual(await store.liveRuns.admit('key-a', ['run_3', 'run_4', 'run_5'], 4), { admitted: false, held: 2 });
  assert.equal(await store.liveRuns.held('key-a'), 2);
});

test('a process that died between admitting a run and writing it leaves nothing held once the sweep has passed; a run written but not indexed stays held, and indexed', async () => {
  const store = storeOf('live-orphans');
  await store.liveRuns.admit('key-a', ['run_00000000000000000000000000000001'], 3);
  const written = await store.createRun(run('key-a'));
  // As if the process died between the run's hash and its index entries.
  await redis.zrem(store.keys.activeRuns, written);
  assert.equal(await store.liveRuns.held('key-a'), 2);
  assert.equal(await store.liveRuns.releaseOrphans(60_000), 0, 'admissions younger than the grace are left alone');
  assert.equal(await store.liveRuns.releaseOrphans(0), 1);
  assert.equal(await store.liveRuns.held('key-a'), 1);
  assert.notEqual(await redis.zscore(store.keys.activeRuns, written), null, 'the written run is in the active index again');
  assert.equal(await store.liveRuns.releaseOrphans(0), 0, 'a live run is never released');
  await store.transition({ runId: written, from: ['queued'], to: 'failed', error: { code: 'x', message: 'x', retryable: false } });
  assert.equal(await store.liveRuns.held('key-a'), 0);
});
