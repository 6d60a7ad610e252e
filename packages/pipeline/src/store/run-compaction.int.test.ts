import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { toStreamEvents } from './events.js';
import { compareStreamIds, decodeArchive, encodeArchive, OUTPUTS_TOMBSTONE, readArchive, findRunDone, readRunHistories, runEventPages, splitRunFields } from './run-archive.js';
import { compactEndedRuns } from './run-compaction.js';
import { RunStore } from './run-store.js';

let redis: Redis;
let compactor: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
  compactor = redis.duplicate();
});
after(() => {
  redis.disconnect();
  compactor.disconnect();
});

/** A run of two stages with a few content events, ended `completed`. */
async function endedRun(store: RunStore): Promise<string> {
  const runId = await store.createRun({ kind: 'story', request: { topic: 'a kite with no string' }, stages: ['a', 'b'] });
  for (const stage of ['a', 'b']) {
    await store.startStage({ runId, stage });
    for (let i = 0; i < 5; i += 1) await store.appendEvent(runId, 'content', { stage, section: stage, chunk: `part ${i} of ${stage}. ` });
    await store.completeStage({ runId, stage, output: { text: `all of ${stage}` } }).recorded;
  }
  await store.transition({ runId, from: ['running'], to: 'completed', result: { text: 'all of a, all of b' } });
  return runId;
}

const compactNow = (store: RunStore) => compactEndedRuns({ redis: compactor, keys: store.keys, endedBefore: Date.now() + 1, retentionSeconds: store.retentionSeconds });

/** Makes the compactor's connection run `write` once, just before its first EXEC (another process writing meanwhile); returns the undo. */
function beforeFirstExec(write: () => Promise<void>): () => void {
  const multi = compactor.multi.bind(compactor);
  let done = false;
  compactor.multi = ((...args: Parameters<typeof multi>) => {
    const tx = multi(...args);
    const exec = tx.exec.bind(tx);
    tx.exec = (async () => {
      if (!done) {
        done = true;
        await write();
      }
      return exec();
    }) as typeof tx.exec;
    return tx;
  }) as typeof compactor.multi;
  return () => {
    compactor.multi = multi;
  };
}

test('an archive gives back every field and every event, ids included', () => {
  const events = ['5-0', '5-1', '7-0', '1732300000000-12', '1732300000001-0'].map((id, i) => ({ id, type: i % 2 ? 'stage' : 'content', data: `{"n":${i}}` }));
  const archive = { fields: { request: '{"topic":"é"}', result: '{"a":[1,2]}' }, events, outputs: { search: '{"results":[]}' } };
  assert.deepEqual(decodeArchive(encodeArchive(archive)), archive);
});

test('a compacted run reads as before, and an event appended late follows the archived ones in a stream that still expires', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction'), retentionSeconds: 600 });
  const runId = await endedRun(store);
  const run = await store.getRun(runId);
  const [history] = await readRunHistories(redis, store.keys, [runId]);
  assert.equal(history?.length, 1 + 2 * (1 + 5 + 1), 'the transition wrote done; each stage its running, content and completed (with the run\'s progress)');

  const report = await compactNow(store);
  assert.equal(report.compacted, 1);
  assert.deepEqual(report.jobs, [], 'a run with no step queues lists no jobs');
  assert.equal((await compactNow(store)).compacted, 0, 'a run is compacted once');
  assert.deepEqual(await store.getRun(runId), run);
  assert.deepEqual((await readRunHistories(redis, store.keys, [runId]))[0], history);
  assert.equal(await redis.xlen(store.keys.events(runId)), 0);
  assert.equal(await redis.hget(store.keys.run(runId), 'result'), null, 'the result lives in the archive only');

  const late = await store.appendEvent(runId, 'stage', { stage: 'b', status: 'cancelled', attempt: 1 });
  assert.ok(late && history?.every((event) => compareStreamIds(event.id, late) < 0), 'the late event sorts after every archived one');
  assert.ok((await redis.pttl(store.keys.events(runId))) > 0, 'the stream keeps its TTL');
  const all = (await readRunHistories(redis, store.keys, [runId]))[0] ?? [];
  assert.deepEqual(all.slice(0, -1), history);
  assert.equal(all.at(-1)?.id, late);

  // An SSE client resuming from the fourth event gets the rest of the archive, then the late one, then nothing.
  const read = runEventPages({ redis, keys: store.keys, runId });
  const resumed = await read(history?.[3]?.id as string);
  assert.deepEqual(resumed, history?.slice(4));
  assert.deepEqual(await read(resumed.at(-1)?.id as string), all.slice(-1));
  assert.deepEqual(await read(late), []);
  // Its done is found in the archive, as the stream no longer holds it.
  assert.deepEqual(await findRunDone(redis, store.keys, runId), history?.findLast((event) => event.type === 'done'));
});

test('a run written to between the compactor\'s read and its write is compacted again, with the write', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-watch'), retentionSeconds: 600 });
  const runId = await endedRun(store);
  // Between the read and the EXEC, another process records a stage (as a late markEnded would).
  const restore = beforeFirstExec(async () => void (await redis.hset(store.keys.run(runId), 'b.error', '{"code":"late"}')));
  try {
    const report = await compactNow(store);
    assert.equal(report.compacted, 1);
    assert.equal((await readArchive(redis, store.keys, runId))?.fields['b.error'], '{"code":"late"}', 'the write made meanwhile is in the archive');
  } finally {
    restore();
  }
});

test('a run listed as ended that is still running is left as it is', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-live'), retentionSeconds: 600 });
  const runId = await store.createRun({ kind: 'story', request: {}, stages: ['a'] });
  await redis.zadd(store.keys.endedRuns, Date.now() - 1000, runId);
  const before = await redis.hgetall(store.keys.run(runId));
  const report = await compactNow(store);
  assert.deepEqual([report.compacted, report.dropped], [0, 1]);
  assert.deepEqual(await redis.hgetall(store.keys.run(runId)), before);
  assert.equal(await redis.zcard(store.keys.endedRuns), 0);
});

test('an archive written by the Node encoder, before compaction built the text in a script, still decodes', () => {
  const written = 'Gy4BAAT6+umUzaw+WlU279PrhXQpEB6H5U3I+Y/NjM2MpL1poobStW5TNLpNhB319dhsGZ3iUPJh2jE8+m2phCgKpcjVh5iK/zdqRZI4H307OlFjRJUEv5Sd4o51g4nkdaHywf3x5WzWWCK2lrgtm29fevJmirq2oTbSCiluKSJvMw9mMjbXxlHpEtMZ9bq99vLAaDd6GCOCUbyDfUjqhtG1LhjvQkD5DiGWmjhF6ZtKsT4kt/PN60+6+bgm1A==';
  assert.deepEqual(decodeArchive(Buffer.from(written, 'base64')), {
    fields: { request: '{"topic":"é / \\"kite\\""}', result: '{"a":[1,2],"url":"https://x.test/a"}', 'a.status': 'completed' },
    events: [{ id: '1732300000000-0', type: 'stage', data: '{"stage":"a"}' }, { id: '1732300000000-3', type: 'content', data: '{"chunk":"ü\\n"}' }, { id: '1732300000007-0', type: 'done', data: '{}' }],
    outputs: { a: '{"text":"x"}' },
  });
});

/** Text cjson and JSON.stringify escape differently: slashes, backslashes, quotes, controls, DEL, non-ASCII. */
const awkward = 'a/b \\/ \\\\/ "q" \u0001\u001f\u007f\t\n é 😀 </script> {}[]';

test('a failed run\'s archive, built by the script, holds exactly what the Node encoder would, outputs and odd events included', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-text'), retentionSeconds: 600 });
  const runId = await store.createRun({ kind: 'story', request: { topic: awkward }, stages: ['a', 'b'], stepQueues: { a: 'tool-a', b: 'tool-b' } });
  await store.startStage({ runId, stage: 'a' });
  await store.appendEvent(runId, 'content', { stage: 'a', section: 'a', chunk: awkward });
  await store.completeStage({ runId, stage: 'a', output: { text: awkward } }).recorded;
  await redis.hset(store.keys.run(runId), 'note', awkward, '17', 'a field named by a number');
  const events = store.keys.events(runId);
  const last = (await redis.xrevrange(events, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  const next = Number(last.split('-')[0]) + 5;
  await redis.xadd(events, `${next}-0`, 'data', '"no type"');
  await redis.xadd(events, `${next}-7`, 'type', 'no data');
  await redis.xadd(events, `${next + 1}-2`, 'type', 'x', 'data', awkward, 'type', 'y');
  await store.transition({ runId, from: ['running'], to: 'failed', error: { code: 'boom', message: awkward, stage: 'b', retryable: false } });
  const hash = await redis.hgetall(store.keys.run(runId));
  const outputs = await redis.hgetall(store.keys.outputs(runId));
  assert.ok(Object.keys(outputs).length > 0, 'a failed run keeps its outputs until compacted');
  const expected = { fields: splitRunFields(hash).archived, events: toStreamEvents(await redis.xrange(events, '-', '+')), outputs };

  const report = await compactNow(store);
  assert.equal(report.compacted, 1);
  assert.deepEqual(report.jobs, [{ queue: 'tool-a', jobId: `${runId}.a` }, { queue: 'tool-b', jobId: `${runId}.b` }], 'the run\'s step jobs are listed for the compactor to tidy');
  assert.deepEqual(await readArchive(redis, store.keys, runId), expected);
  assert.deepEqual(await redis.hgetall(store.keys.run(runId)), splitRunFields(hash).kept);
  assert.deepEqual(await redis.hgetall(store.keys.outputs(runId)), { [OUTPUTS_TOMBSTONE]: '1' });
  for (const key of [store.keys.run(runId), store.keys.outputs(runId), store.keys.archive(runId)]) assert.ok((await redis.pttl(key)) > 500_000, `${key} keeps the run's TTL`);
});

test('a run with no events archives an empty list of them', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-empty'), retentionSeconds: 600 });
  const runId = await store.createRun({ kind: 'story', request: {}, stages: ['a'], stepQueues: { a: 'tool-a' } });
  await store.transition({ runId, from: ['queued'], to: 'completed', result: {} });
  await redis.xtrim(store.keys.events(runId), 'MAXLEN', 0);
  const report = await compactNow(store);
  assert.deepEqual([report.compacted, report.jobs], [1, []], 'a completed run with no refused start leaves no failed job to look for');
  assert.deepEqual((await readArchive(redis, store.keys, runId))?.events, []);
});

test('of a completed run only the stages whose jobs were refused are listed to tidy; of a cancelled one every stage, and the refusals are not archived', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-refused'), retentionSeconds: 600 });
  const stepQueues = { a: 'tool-a', b: 'tool-b', m: 'tool-m' };
  const completed = await store.createRun({ kind: 'story', request: {}, stages: ['a', 'b', 'm.x'], stepQueues });
  const cancelled = await store.createRun({ kind: 'story', request: {}, stages: ['a', 'b'], stepQueues });
  await store.transition({ runId: completed, from: ['queued'], to: 'completed', result: {} });
  await store.transition({ runId: cancelled, from: ['queued'], to: 'cancelled' });
  // Jobs added again, or retried after a stall, once their run had ended: refused, and marked so.
  for (const [runId, stage] of [[completed, 'b'], [completed, 'm.x'], [completed, 'm'], [cancelled, 'a']] as const) await store.markRefused(runId, stage);
  const report = await compactNow(store);
  const listed = (runId: string) => report.jobs.filter((job) => job.jobId.startsWith(`${runId}.`)).map((job) => `${job.queue} ${job.jobId.slice(runId.length + 1)}`).sort();
  assert.deepEqual(listed(completed), ['tool-b b', 'tool-m m', 'tool-m m.x'], 'a map step\'s own job is listed too when it was refused');
  assert.deepEqual(listed(cancelled), ['tool-a a', 'tool-b b']);
  const archived = (await readArchive(redis, store.keys, completed))?.fields ?? {};
  assert.deepEqual(Object.keys(archived).filter((field) => field.endsWith('.refused')), []);
  await redis.del(store.keys.run(completed));
  await store.markRefused(completed, 'a');
  assert.equal(await redis.exists(store.keys.run(completed)), 0, 'a run that is gone is not written back');
});

test('a run whose stream ids are past 2^53 ms is not compacted: the pass fails and the run is left whole', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-ids'), retentionSeconds: 600 });
  const runId = await store.createRun({ kind: 'story', request: {}, stages: ['a'] });
  await store.transition({ runId, from: ['queued'], to: 'cancelled' });
  await redis.xadd(store.keys.events(runId), '9007199254740993-0', 'type', 'late', 'data', '{}');
  const before = await redis.hgetall(store.keys.run(runId));
  await assert.rejects(compactNow(store), /9007199254740993-0 cannot be archived/);
  assert.deepEqual(await redis.hgetall(store.keys.run(runId)), before);
  assert.equal(await redis.exists(store.keys.archive(runId)), 0);
});

test('an event appended between the compactor\'s read and its write is archived with the others', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-append'), retentionSeconds: 600 });
  const runIds = [await endedRun(store), await endedRun(store)];
  let late: string | null = null;
  const restore = beforeFirstExec(async () => void (late = await store.appendEvent(runIds[1] as string, 'stage', { stage: 'b', status: 'cancelled', attempt: 1 })));
  try {
    const report = await compactNow(store);
    assert.deepEqual([report.compacted, report.deferred], [2, 0], 'the voided transaction\'s runs are compacted one by one');
    assert.equal((await readArchive(redis, store.keys, runIds[1] as string))?.events.at(-1)?.id, late);
    assert.equal(await redis.xlen(store.keys.events(runIds[1] as string)), 0);
  } finally {
    restore();
  }
});

test('a compaction after the server forgot its scripts still writes in its transaction', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compaction-flush'), retentionSeconds: 600 });
  await endedRun(store);
  assert.equal((await compactNow(store)).compacted, 1);
  await compactor.script('FLUSH');
  const runId = await endedRun(store);
  assert.equal((await compactNow(store)).compacted, 1);
  assert.equal((await readArchive(redis, store.keys, runId))?.events.at(-1)?.type, 'done');
});
