/**
 * After a reconnect, ioredis sends again the commands Redis had not answered, some of which it had
 * applied. Each run write must therefore be harmless the second time: the same append, the same
 * stage start, the same completion.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, isCluster, keySlot, testRedis, uniquePrefix } from '@switchyard/redis';
// The story's stages, as a run of it lists them once its writers have fanned out.
const STORY_STAGES = ['search', 'outline', 'write.introduction', 'write.development', 'write.climax', 'write.conclusion', 'polish'];
import { readEvents } from './events.js';
import { RunStore } from './run-store.js';
import { APPEND_EVENTS_COMMAND, APPEND_EVENTS_SCRIPT, EventAppends } from './event-appends.js';
import { runScripts } from './stage-scripts.js';
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
  const append = async (seq: number, chunk: string) =>
    ((await redis.eval(APPEND_EVENTS_SCRIPT, 2, store.keys.run(runId), store.keys.events(runId), '1000', 'writer-a', seq, 'content', JSON.stringify({ stage: 'write.climax', chunk }))) as (string | null)[])[0] ?? null;
  assert.equal(typeof (await append(1, 'one')), 'string');
  assert.equal(await append(1, 'one'), null, 'the resent append is refused');
  assert.equal(typeof (await append(2, 'two')), 'string');
  assert.deepEqual(await types(store, runId), ['content', 'content']);
});

test('appends of one turn of the event loop, to several runs, go in one call and land in order, each run its own', async () => {
  const [a, b] = await Promise.all([newRun(uniquePrefix('batched-a')), newRun(uniquePrefix('batched-b'))]);
  // The real connection, its script calls counted (the test Redis serves other test files too).
  let calls = 0;
  const counted = new Proxy(redis, {
    get: (target, name, receiver) => {
      const value: unknown = Reflect.get(target, name, receiver);
      if (name !== APPEND_EVENTS_COMMAND || typeof value !== 'function') return value;
      return (...args: unknown[]) => ((calls += 1), (value as (...a: unknown[]) => unknown).apply(receiver, args));
    },
  });
  const cluster = isCluster(redis);
  const appends = new EventAppends({ redis: counted, writer: 'writer-b', maxlen: '1000', cluster });
  const chunks = Array.from({ length: 30 }, (_, i) => `chunk ${i}`);
  const ids = await Promise.all(
    chunks.flatMap((chunk, i) => [a, b].map((run) => appends.submit({ run: run.store.keys.run(run.runId), events: run.store.keys.events(run.runId), seq: i + 1, type: 'content', data: JSON.stringify({ stage: 's', section: 's', chunk }) }))),
  );
  // On a Redis Cluster a call stays in one run's slot: one per run there.
  assert.equal(calls, cluster ? new Set([a, b].map((run) => keySlot(run.store.keys.run(run.runId)))).size : 1, 'one script call for all 60 appends (per run slot on a cluster)');
  assert.ok(ids.every((id) => typeof id === 'string'));
  for (const run of [a, b]) {
    const events = await readEvents({ redis, key: run.store.keys.events(run.runId), after: '0', count: 100 });
    assert.deepEqual(events.map((e) => (JSON.parse(e.data) as { chunk: string }).chunk), chunks);
  }
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
  assert.deepEqual(await complete(), [1, 1, 7]);
  // The second says it found the stage recorded: its sender adds nothing carrying the output.
  assert.deepEqual(await complete(), [0, 1, 7]);
  assert.deepEqual(await types(store, runId), ['stage', 'stage']);
});

test('a quiet first start is not announced, its completion carries the run\'s progress, and a quiet retry is announced', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('quiet-start'));
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  assert.deepEqual(await writes.submit({ kind: 'start', keys, stage: 'search', id: 'op-1', flags: 'q' }).reply, ['running', '1']);
  assert.deepEqual(await types(store, runId), []);
  assert.equal((await store.getRun(runId))?.stages[0]?.status, 'running');
  await writes.submit({ kind: 'complete', keys, stage: 'search', output: '{"results":[]}' }).reply;
  assert.deepEqual(await writes.submit({ kind: 'start', keys, stage: 'outline', id: 'op-2', flags: 'q' }).reply, ['started', '1']);
  assert.deepEqual(await writes.submit({ kind: 'start', keys, stage: 'outline', id: 'op-3', flags: 'q' }).reply, ['started', '2']);
  const events = await readEvents({ redis, key: store.keys.events(runId), after: '0', count: 100 });
  assert.deepEqual(events.map((e) => JSON.parse(e.data) as unknown), [
    { stage: 'search', status: 'completed', attempt: 1, progress: { percent: 14, completed_stages: 1, total_stages: 7 } },
    { stage: 'outline', status: 'running', attempt: 2 },
  ]);
});

test('a last stage\'s finish sent twice completes the stage and ends the run once, its output only in the result', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('resent-finish'));
  await redis.hset(store.keys.run(runId), 'status', 'running');
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  await writes.submit({ kind: 'complete', keys, stage: 'search', output: '{"results":[]}' }).reply;
  const end = { to: 'completed', from: 'running,queued', error: '', result: '{"story":"done"}', retentionSeconds: '60', keep: '', title: '' };
  const finish = () => writes.submit({ kind: 'finish', keys, stage: 'polish', end }).reply;
  // Moved, the status before, the run's kind and its agents' cost (nano-dollars, which its batch counts).
  assert.deepEqual(await finish(), [1, 'running', 'story', '0']);
  assert.deepEqual(await finish(), [0, 'completed', '', '0']);
  assert.deepEqual(await types(store, runId), ['stage', 'stage', 'done']);
  const run = await store.getRun(runId);
  assert.deepEqual([run?.status, run?.result, run?.stages.find((s) => s.name === 'polish')?.status, run?.progress], ['completed', { story: 'done' }, 'completed', 29]);
  assert.equal(await redis.exists(store.keys.outputs(runId)), 0, 'a completed run keeps no outputs beside its result');
  assert.ok((await redis.ttl(store.keys.run(runId))) > 0, 'its retention clock runs');
});

test('a completion that arrives after its run has expired writes nothing back', async () => {
  const { store, runId, keys } = await newRun(uniquePrefix('late-complete'));
  await redis.del(store.keys.run(runId), store.keys.events(runId));
  const writes = new StageWrites({ call: runScripts(redis).stageWrites, maxlen: '1000' });
  assert.deepEqual(await writes.submit({ kind: 'complete', keys, stage: 'search', output: '{"results":[]}' }).reply, [0, 0, 0]);
  assert.equal(await redis.exists(store.keys.run(runId), store.keys.outputs(runId), store.keys.events(runId)), 0);
});
