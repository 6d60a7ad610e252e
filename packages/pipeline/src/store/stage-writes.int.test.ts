import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, isCluster, keySlot, testRedis, uniquePrefix } from '@switchyard/redis';
// The story's stages, as a run of it lists them once its writers have fanned out.
const STORY_STAGES = ['search', 'outline', 'write.introduction', 'write.development', 'write.climax', 'write.conclusion', 'polish'];
import { RunStore } from './run-store.js';
import { runScripts, type ScriptCall } from './stage-scripts.js';
import { StageWrites } from './stage-writes.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

/** The real script on the real Redis, with a count of the calls made to it. */
function countedWrites(prefix: string) {
  const store = new RunStore({ redis, prefix });
  const script = runScripts(redis).stageWrites;
  let calls = 0;
  const call: ScriptCall = (...args) => {
    calls += 1;
    return script(...args);
  };
  const writes = new StageWrites({ call, maxlen: '1000', cluster: isCluster(redis) });
  const keys = (runId: string) => [store.keys.run(runId), store.keys.outputs(runId), store.keys.events(runId)];
  return { store, writes, keys, calls: () => calls };
}

test('stage writes made in one turn of the event loop go to Redis as one script call (on a cluster, one per run slot)', async () => {
  const { store, writes, keys, calls } = countedWrites(uniquePrefix('stage-writes'));
  const runIds = await store.createRuns([1, 2, 3].map(() => ({ kind: 'story', request: { topic: 't' }, stages: STORY_STAGES })));
  const perTurn = isCluster(redis) ? new Set(runIds.map((id) => keySlot(store.keys.run(id)))).size : 1;
  const replies = await Promise.all(runIds.map((id) => writes.submit({ kind: 'start', keys: keys(id), stage: 'search' }).reply));
  assert.equal(calls(), perTurn);
  assert.deepEqual(replies, [['running', '1'], ['running', '1'], ['running', '1']]);

  const completions = await Promise.all(runIds.map((id) => writes.submit({ kind: 'complete', keys: keys(id), stage: 'search', output: '{"results":[]}' }).reply));
  assert.equal(calls(), 2 * perTurn);
  // Each answers that it recorded the stage, its run's completed stages and stages in all.
  assert.deepEqual(completions, [[1, 1, 7], [1, 1, 7], [1, 1, 7]]);
  const run = await store.getRun(runIds[0] as string);
  assert.equal(run?.status, 'running');
  assert.equal(run?.stages[0]?.status, 'completed');
});

test('a stage write that fails in Redis fails alone, and the others in its call still apply', async () => {
  const { store, writes, keys } = countedWrites(uniquePrefix('stage-writes'));
  const [good, broken] = await store.createRuns([1, 2].map(() => ({ kind: 'story', request: { topic: 't' }, stages: STORY_STAGES })));
  await redis.set(store.keys.events(broken as string), 'not a stream');
  const [goodReply, brokenReply] = await Promise.allSettled([
    writes.submit({ kind: 'start', keys: keys(good as string), stage: 'search' }).reply,
    writes.submit({ kind: 'start', keys: keys(broken as string), stage: 'search' }).reply,
  ]);
  assert.deepEqual(goodReply, { status: 'fulfilled', value: ['running', '1'] });
  assert.equal(brokenReply.status, 'rejected');
  assert.match(String((brokenReply as PromiseRejectedResult).reason), /stage start of search failed in Redis: .*WRONGTYPE/);
});

test('a completion that has been sent is applied before any later command on the same connection', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('stage-writes') });
  const runId = await store.createRun({ kind: 'story', request: { topic: 't' }, stages: STORY_STAGES });
  await store.startStage({ runId, stage: 'search' });
  const { sent, recorded } = store.completeStage({ runId, stage: 'search', output: { results: ['found'] } });
  await sent;
  // Issued before the completion's reply has been read: it must still see the completion.
  const stored = await redis.hget(store.keys.outputs(runId), 'search');
  assert.equal(stored, '{"results":["found"]}');
  await recorded;
});
