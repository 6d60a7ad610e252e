/**
 * After a reconnect, ioredis sends again the commands Redis had not answered, some of which it had
 * applied. Each run write must therefore be harmless the second time: the same append, the same
 * stage start, the same completion.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
// The story's stages, as a run of it lists them once its writers have fanned out.
const STORY_STAGES = ['search', 'outline', 'write.introduction', 'write.development', 'write.climax', 'write.conclusion', 'polish'];
import { readEvents } from './events.js';
import { RunStore } from './run-store.js';
import { APPEND_EVENT_SCRIPT, runScripts } from './stage-scripts.js';
import { StageWrites } from './stage-writes.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

async function newRun(prefix: string) {
  const store = new RunStore({ redis, prefix });
  const runId = await store.createRun({ kind: 'story', request: { topic: 't' }, stages: STORY_STAGES });
  const keys = [store.keys.run(runId), store.keys.outputs(runId), store.keys.events(runId)];
  return { store, runId, keys };
}

const types = async (store: RunStore, runId: string) => (await readEvents({ redis, key: store.keys.events(runId), after: '0', count: 100 })).map((e) => e.type);

test('an event append sent twice is appended once, and the next append still goes through', async () => {
  const { store, runId } = await newRun(uniquePrefix('resent-append'));
  const append = (seq: number, chunk: string) =>
    redis.eval(APPEND_EVENT_SCRIPT, 2, store.keys.run(runId), store.keys.events(runId), '1000', 'writer-a', seq, 'content', JSON.stringify({ stage: 'write.climax', chunk }));
  assert.equal(typeof (await append(1, 'one')), 'string');
  assert.equal(await append(1, 'one'), null, 'the resent append is refused');
  assert.equal(typeof (await append(2, 'two')), 'string');
  assert.deepEqual(await types(store, runId), ['content', 'content']);
});

test('an append to a run that no longer exists writes nothing', async () => {
  const { store } = await newRun(uniquePrefix('resent-gone'));
  assert.equal(await store.appendEvent('run_gone', 'reset', { stage: 'write.climax', section: 'climax' }), null);
  assert.equal(await redis.exists(store.keys.events('run_gone')), 0);
});

test('a stage start sent twice counts one attempt and announces it once', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('resent-start'));
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  const start = () => writes.submit({ kind: 'start', keys, stage: 'search', id: 'op-1' }).reply;
  assert.deepEqual(await start(), ['running', '1'], 'the first start moves the queued run to running');
  assert.deepEqual(await start(), ['started', '1']);
  assert.deepEqual(await types(store, runId), ['stage']);
  assert.equal((await store.getRun(runId))?.stages[0]?.attempts, 1);
});

test('a stage completion sent twice is recorded and announced once', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('resent-complete'));
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  await writes.submit({ kind: 'start', keys, stage: 'search', id: 'op-1' }).reply;
  const complete = () => writes.submit({ kind: 'complete', keys, stage: 'search', output: '{"results":[]}' }).reply;
  assert.deepEqual(await complete(), [1, 7]);
  assert.deepEqual(await complete(), [1, 7]);
  assert.deepEqual(await types(store, runId), ['stage', 'stage', 'progress']);
});

test('a completion that arrives after its run has expired writes nothing back', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('late-complete'));
  await redis.del(store.keys.run(runId), store.keys.events(runId));
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  assert.deepEqual(await writes.submit({ kind: 'complete', keys, stage: 'search', output: '{"results":[]}' }).reply, [0, 0]);
  assert.equal(await redis.exists(store.keys.run(runId), store.keys.outputs(runId), store.keys.events(runId)), 0);
});
