/**
 * The guarantees the bench writes by hand are there: each rung's runs end with what it promises,
 * so the bench measures what it names.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeArchive } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { startBaseline } from './story-baseline.js';
import { serveByHand } from './story-api-by-hand.js';
import { eventsKeyByHand, guaranteesByHand, type Rung } from './story-guarantees.js';

async function runThree(rung: Rung) {
  const redis = await testRedis();
  const prefix = uniquePrefix(`by-hand-${rung}`);
  const flow = await startBaseline({ redisUrl: redis.url, prefix, concurrency: 2, flowControl: true, guarantees: guaranteesByHand(rung, prefix) });
  const client = createRedisClient(redis.url);
  const priorities = new Set<number | undefined>();
  for (const worker of flow.workers) worker.on('completed', (job) => priorities.add(job.opts.priority));
  await flow.runBatch(3);
  const run = (key: string) => `${prefix}:run:batch1-0${key}`;
  const found = {
    run: await client.hgetall(run('')),
    events: (await client.xrange(run(':events'), '-', '+')).map(([, fields]) => fields[1]),
    outputs: await client.hgetall(run(':outputs')),
    archive: await client.getBuffer(run(':archive')),
    active: await client.zcard(`${prefix}:runs:active`),
    batchDone: (await client.xrange(`${prefix}:batch:batch1:events`, '-', '+')).length,
    priorities: [...priorities],
    limited: flow.workers.every((worker) => worker.opts.limiter !== undefined),
  };
  await flow.close();
  await client.quit();
  return found;
}

test('the flow-control rung runs every job with a priority and every worker with a limiter, and writes no record', async () => {
  const found = await runThree('flow_control');
  assert.deepEqual(found.priorities, [1]);
  assert.equal(found.limited, true);
  assert.deepEqual(found.run, {});
  assert.deepEqual(found.events, []);
});

test('the run-record rung ends each run completed with its result, out of the live index, and its batch once', async () => {
  const found = await runThree('run_record');
  assert.equal(found.run.status, 'completed');
  assert.ok(found.run.result?.includes('polished_content'), found.run.result);
  assert.equal(found.active, 0);
  assert.equal(found.batchDone, 1);
  assert.deepEqual(found.events, ['done']);
});

test('the stage-events rung keeps each of the seven outputs and tells each stage, then the end', async () => {
  const found = await runThree('stage_events');
  assert.deepEqual(found.events, [...Array(7).fill('stage'), 'done']);
  assert.equal(Object.keys(found.outputs).length, 7);
  assert.equal(found.archive, null);
});

test('the archive rung folds a run into an archive holding its record, result and every event, and drops the live keys', async () => {
  const found = await runThree('archive');
  assert.deepEqual(found.events, []);
  assert.deepEqual(found.run, {});
  assert.deepEqual(found.outputs, {});
  assert.ok(found.archive, 'an archive is written');
  const archive = decodeArchive(found.archive);
  assert.equal(archive.fields.status, 'completed');
  assert.ok(archive.fields.result?.includes('polished_content'));
  assert.deepEqual(archive.events.map((e) => e.type), [...Array(7).fill('stage'), 'done']);
});

test('the last rung behind the API by hand takes a story and its client reads the run\'s end from its stream, which is archived only once settled', async () => {
  const redis = await testRedis();
  const prefix = uniquePrefix('by-hand-api');
  const flow = await startBaseline({ redisUrl: redis.url, prefix, concurrency: 2, flowControl: true, guarantees: guaranteesByHand('archive', prefix) });
  const api = await serveByHand(flow, { redisUrl: redis.url, eventsKey: (id) => eventsKeyByHand(prefix, id) });
  const client = createRedisClient(redis.url);
  try {
    await api.runStory('a lighthouse');
    const [runKey] = await client.keys(`${prefix}:run:run_*:events`);
    assert.ok(runKey, 'the run has its stream');
    const events = (await client.xrange(runKey, '-', '+')).map(([, fields]) => fields[1]);
    assert.deepEqual(events, [...Array(7).fill('stage'), 'done']);
    assert.equal((await client.keys(`${prefix}:run:*:archive`)).length, 0);
  } finally {
    await api.close();
    await flow.close();
    await client.quit();
  }
});

test('the plain flow\'s outline and polish read their children\'s outputs, as the story\'s data flows', async () => {
  const redis = await testRedis();
  const prefix = uniquePrefix('by-hand-reads');
  const flow = await startBaseline({ redisUrl: redis.url, prefix, concurrency: 2 });
  const monitor = await createRedisClient(redis.url).monitor();
  const reads: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args[0]?.toLowerCase() === 'hgetall' && args[1]?.startsWith(prefix) && args[1].endsWith(':processed')) reads.push(args[1]);
  });
  try {
    await flow.runStory('reads');
    // The monitor's feed is its own connection: what it tells may come just after the story's end.
    for (const deadline = Date.now() + 5000; reads.length < 2 && Date.now() < deadline; ) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reads.map((key) => key.split(':').at(-2)).sort(), ['reads.outline', 'reads.polish']);
  } finally {
    monitor.disconnect();
    await flow.close();
  }
});
