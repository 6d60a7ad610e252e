/**
 * SSE streams share Redis connections: hundreds of clients following runs and a batch at once cost
 * the orchestrator a bounded number of Redis clients (one hub reader, not one each), every stream
 * still gets all its events, and `/health` answers meanwhile. A stream that Redis cannot serve
 * (its `maxclients` reached) is refused with 503 before anything is sent, never answered 200 and
 * left silent.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { EventSourceMessage } from 'eventsource-parser/stream';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, masters, RestartableRedis } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator } from './server.js';
import { countingAuthor } from './testing/authors.js';
import { readSse } from './testing/events.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

const RUNS = 25;
const FOLLOWERS_PER_RUN = 16;
const BATCH_FOLLOWERS = 25;
const logger = createLogger({ name: 'sse-fanout', level: 'silent' });

const author = countingAuthor();
let stack: TestStack;
let redis: Redis;
before(async () => {
  stack = await startTestStack({ label: 'sse-fanout', author });
  redis = createRedisClient(stack.redisUrl);
});
after(async () => {
  await redis.quit();
  await stack.close();
});

/** Clients connected under `name`, on every master. */
async function clientsNamed(client: Redis, name: string): Promise<number> {
  let count = 0;
  for (const node of await masters(client)) {
    const list = String(await node.client('LIST'));
    count += list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
  }
  return count;
}

async function timedHealth(api: RunningOrchestrator): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${api.url}/health`);
  await res.body?.cancel();
  assert.equal(res.status, 200);
  return performance.now() - started;
}

test(`${RUNS * FOLLOWERS_PER_RUN + BATCH_FOLLOWERS} concurrent SSE streams use a bounded number of Redis clients, and every stream receives all its events`, { timeout: 240_000 }, async (t) => {
  const name = `sse-fanout-${randomUUID().slice(0, 8)}`;
  const api = await startOrchestrator({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger, heartbeatMs: 5000, sse: { maxStreams: 1000, maxStreamsPerKey: 1000 }, redisClientName: name });
  t.after(() => api.close());
  // The runs wait at their first stage until every stream is open, so that all of them follow live.
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  author.hooks.research = () => gate;
  t.after(() => {
    delete author.hooks.research;
    release();
  });

  const items = Array.from({ length: RUNS }, (_, i) => ({ topic: `a lighthouse number ${i + 1}` }));
  const headers = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
  const created = (await (await fetch(`${api.url}/v1/batches`, { method: 'POST', headers, body: JSON.stringify({ items, defaults: { style: 'concise' } }) })).json()) as { batch_id: string; run_ids: string[] };
  assert.equal(created.run_ids.length, RUNS);
  await timedHealth(api);
  const before = await clientsNamed(redis, name);

  const urls = [...created.run_ids.flatMap((runId) => Array.from({ length: FOLLOWERS_PER_RUN }, () => `/v1/runs/${runId}/events`)), ...Array.from({ length: BATCH_FOLLOWERS }, () => `/v1/batches/${created.batch_id}/events`)];
  const opened = await Promise.all(urls.map((url) => fetch(`${api.url}${url}`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })));
  assert.deepEqual([...new Set(opened.map((res) => res.status))], [200], 'every stream is answered 200');
  const reading = opened.map((res) => readSse(res));
  const during = await clientsNamed(redis, name);
  const healthMs = [await timedHealth(api), await timedHealth(api)];

  release();
  const streams = await Promise.all(reading);
  const afterwards = await clientsNamed(redis, name);
  process.stdout.write(`# ${urls.length} SSE streams: redis clients of the orchestrator before ${before}, while open ${during}, after ${afterwards}; /health took ${healthMs.map((ms) => Math.round(ms)).join(' and ')} ms while they were open\n`);

  assert.ok(during - before <= 2, `the streams added ${during - before} Redis clients (one hub reader expected)`);
  for (const ms of healthMs) assert.ok(ms < 5000, `/health answered in ${Math.round(ms)} ms`);
  // Every follower of a run got the same events, ending with done, and the batch's followers every run's end.
  const runStreams = streams.slice(0, RUNS * FOLLOWERS_PER_RUN);
  created.run_ids.forEach((runId, i) => {
    const followers = runStreams.slice(i * FOLLOWERS_PER_RUN, (i + 1) * FOLLOWERS_PER_RUN);
    const first = followers[0] as EventSourceMessage[];
    assert.equal(first.at(-1)?.event, 'done', `run ${runId} ended its stream with done`);
    assert.equal((JSON.parse(first.at(-1)?.data ?? '{}') as { status?: string }).status, 'completed');
    assert.ok(first.filter((e) => e.event === 'stage').length >= 7, `run ${runId} had its stage events`);
    for (const events of followers) assert.deepEqual(events.map((e) => e.id), first.map((e) => e.id), `every follower of ${runId} got the same events`);
  });
  for (const events of streams.slice(RUNS * FOLLOWERS_PER_RUN)) {
    assert.equal(events.filter((e) => e.event === 'run').length, RUNS);
    assert.equal(events.at(-1)?.event, 'done');
  }
});

test('a stream that Redis cannot serve (maxclients reached) is refused with 503 and Retry-After, never answered 200 and left silent', { timeout: 60_000 }, async (t) => {
  const own = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
  const admin = createRedisClient(own.url);
  const prefix = `{t:sse-maxclients:${randomUUID().slice(0, 8)}}`;
  const store = new RunStore({ redis: admin, prefix });
  const runId = await store.createRun({ kind: 'story', request: {}, stages: ['a'] });
  const api = await startOrchestrator({ redisUrl: own.url, prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger, heartbeatMs: 60_000 });
  // Its clients first, then the server: a client of a stopped Redis would wait for it forever.
  t.after(async () => {
    await admin.config('SET', 'maxclients', '10000');
    await api.close();
    await admin.quit();
    await own.close();
  });
  const follow = () => fetch(`${api.url}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${TEST_API_KEY}` }, signal: AbortSignal.timeout(10_000) });
  assert.equal((await fetch(`${api.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })).status, 200, 'the API works before');

  // Every connection Redis will take is taken: the orchestrator's event reader cannot connect.
  const connected = Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))?.[1]);
  await admin.config('SET', 'maxclients', String(connected));
  const started = performance.now();
  const refused = await follow();
  const ms = Math.round(performance.now() - started);
  const body = (await refused.json()) as { error?: { code?: string; details?: { reason?: string } } };
  process.stdout.write(`# SSE at Redis maxclients: ${refused.status} ${body.error?.code} in ${ms} ms (${body.error?.details?.reason})\n`);
  assert.equal(refused.status, 503);
  assert.equal(body.error?.code, 'redis_unavailable');
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.ok(ms < 5000, `refused in ${ms} ms`);
  const health = await fetch(`${api.url}/health`);
  await health.body?.cancel();
  assert.ok([200, 503].includes(health.status), '/health still answers');

  // Room again: the stream opens, and ends with the run.
  await admin.config('SET', 'maxclients', '10000');
  let res = await follow();
  for (let tries = 0; res.status !== 200 && tries < 50; tries += 1) {
    await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    res = await follow();
  }
  assert.equal(res.status, 200);
  const reading = readSse(res);
  await store.transition({ runId, from: ['queued'], to: 'cancelled', batchId: null });
  const events = await reading;
  assert.equal(events.at(-1)?.event, 'done');
});
