/**
 * The caps on open SSE streams (per API key: 429; in all: 503; both with Retry-After and the error
 * shape, before anything is streamed), met by a flood of streams while `/health` keeps answering;
 * and a client resuming at or past the end of a finished run or batch, which gets its `done` at
 * once instead of a stream that never ends.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { compactEndedRuns, runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator } from './server.js';
import { countingAuthor } from './testing/authors.js';
import { readSse } from './testing/events.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

const KEY_A = 'sse-limits-key-a-0123456789';
const KEY_B = 'sse-limits-key-b-0123456789';
const KEY_C = 'sse-limits-key-c-0123456789';
const logger = createLogger({ name: 'sse-limits', level: 'silent' });

const author = countingAuthor();
let stack: TestStack;
let redis: Redis;
/** An orchestrator whose idle streams look again only once a minute: whatever comes sooner was not the heartbeat's doing. */
let api: RunningOrchestrator;
before(async () => {
  stack = await startTestStack({ label: 'sse-limits', author });
  redis = createRedisClient(stack.redisUrl);
  api = await startOrchestrator({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY, KEY_A, KEY_B, KEY_C], toolServices: stack.toolConfig, logger, heartbeatMs: 60_000, sse: { maxStreams: 5, maxStreamsPerKey: 3 } });
});
after(async () => {
  await api.close();
  await redis.quit();
  await stack.close();
});

const follow = (path: string, key: string, headers: Record<string, string> = {}) => fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: AbortSignal.timeout(30_000) });

async function startStory(topic: string): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) });
  assert.equal(status, 202);
  return body.run_id;
}

async function refusal(res: Response): Promise<{ status: number; retryAfter: string | null; code: string | undefined; details: Record<string, unknown> | undefined }> {
  const body = (await res.json()) as { error?: { code?: string; message?: string; details?: Record<string, unknown> } };
  assert.equal(typeof body.error?.message, 'string');
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.error?.code, details: body.error?.details };
}

test('streams past a key\'s cap answer 429, past the process\'s cap 503, each with Retry-After; a flood is refused at once while /health answers', { timeout: 120_000 }, async (t) => {
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  author.hooks.research = () => gate;
  t.after(() => {
    delete author.hooks.research;
    release();
  });
  const runId = await startStory('a stream counted by its key');
  const path = `/v1/runs/${runId}/events`;
  const open: Response[] = [];
  t.after(() => Promise.all(open.map((res) => res.body?.cancel())));

  for (let i = 0; i < 3; i += 1) open.push(await follow(path, KEY_A));
  assert.deepEqual(open.map((res) => res.status), [200, 200, 200]);
  assert.deepEqual(await refusal(await follow(path, KEY_A)), { status: 429, retryAfter: '5', code: 'too_many_streams', details: { limit: 3, retry_after_s: 5 } });

  // The flood: one key asks for 200 more streams at once; each is refused without being counted.
  const started = performance.now();
  const flood = fetchAll(200, () => follow(path, KEY_A));
  const healthStarted = performance.now();
  const health = await fetch(`${api.url}/health`);
  const healthMs = performance.now() - healthStarted;
  await health.body?.cancel();
  const answers = await flood;
  const floodMs = performance.now() - started;
  process.stdout.write(`# 200 streams past the key's cap: ${JSON.stringify(count(answers.map((a) => a.status)))} in ${Math.round(floodMs)} ms; /health meanwhile ${health.status} in ${Math.round(healthMs)} ms\n`);
  assert.deepEqual(count(answers.map((a) => a.status)), { 429: 200 });
  assert.equal(health.status, 200);
  // The flood's 200 clients share this process's event loop with the server, on a machine that may
  // be loaded: prompt here is within five seconds (tens of ms on a quiet machine: the figure above).
  assert.ok(healthMs < 5000, `/health answered in ${Math.round(healthMs)} ms`);

  // Another key has its own cap, up to what the process serves in all.
  for (let i = 0; i < 2; i += 1) open.push(await follow(path, KEY_B));
  assert.deepEqual(open.slice(3).map((res) => res.status), [200, 200]);
  assert.deepEqual(await refusal(await follow(path, KEY_C)), { status: 503, retryAfter: '5', code: 'sse_capacity', details: { limit: 5, retry_after_s: 5 } });

  // A stream that ends frees its place: the key may open one again.
  await open.shift()?.body?.cancel();
  let again = await follow(path, KEY_A);
  for (let tries = 0; again.status !== 200 && tries < 50; tries += 1) {
    await again.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    again = await follow(path, KEY_A);
  }
  assert.equal(again.status, 200);
  open.push(again);

  // And every stream still gets its run to the end.
  release();
  for (const res of open.splice(0)) assert.equal((await readSse(res)).at(-1)?.event, 'done');
});

/** Runs `n` requests at once; answers each status, the bodies read. */
async function fetchAll(n: number, request: () => Promise<Response>): Promise<{ status: number }[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const res = await request();
      await res.body?.cancel();
      return { status: res.status };
    }),
  );
}

const count = (values: number[]) => values.reduce<Record<number, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

test('a Last-Event-ID at or past the end of a finished run gets its done at once, with the result, and the stream closes', { timeout: 60_000 }, async () => {
  const runId = await startStory('a stream that was already read');
  const all = await readSse(await follow(`/v1/runs/${runId}/events`, TEST_API_KEY));
  const done = all.at(-1);
  assert.equal(done?.event, 'done');

  for (const resumeFrom of [done?.id ?? '', '99999999999999-0', '999999999999999']) {
    const started = performance.now();
    const resumed = await readSse(await follow(`/v1/runs/${runId}/events`, TEST_API_KEY, { 'Last-Event-ID': resumeFrom }));
    const ms = performance.now() - started;
    assert.deepEqual(resumed.map((e) => [e.id, e.event, e.data]), [[done?.id, 'done', done?.data]], `resumed from ${resumeFrom}`);
    assert.ok(ms < 10_000, `closed after ${Math.round(ms)} ms, not at the next heartbeat (a minute)`);
  }

  // Compacted: the stream is empty and its done is in the archive; a resume past it still gets it.
  const worker = redis.duplicate();
  try {
    await compactEndedRuns({ redis: worker, keys: runKeys(stack.prefix), endedBefore: Date.now() + 1000, retentionSeconds: 600 });
  } finally {
    worker.disconnect();
  }
  assert.equal(await redis.xlen(runKeys(stack.prefix).events(runId)), 0, 'the run was compacted');
  const resumed = await readSse(await follow(`/v1/runs/${runId}/events`, TEST_API_KEY, { 'Last-Event-ID': '99999999999999-0' }));
  assert.deepEqual(resumed.map((e) => [e.id, e.event, e.data]), [[done?.id, 'done', done?.data]]);
  const replayed = await readSse(await follow(`/v1/runs/${runId}/events`, TEST_API_KEY, { 'Last-Event-ID': all[2]?.id ?? '' }));
  assert.deepEqual(replayed.map((e) => e.id), all.slice(3).map((e) => e.id), 'a resume inside the archive replays the rest');
});

test('a Last-Event-ID past the end of a live run gets the done as soon as the run ends', { timeout: 60_000 }, async (t) => {
  const live = stack.api.url; // the stack's own API looks again every second while idle
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  author.hooks.research = () => gate;
  t.after(() => {
    delete author.hooks.research;
    release();
  });
  const runId = await startStory('a client from the future');
  const reading = readSse(await fetch(`${live}/v1/runs/${runId}/events`, { headers: { authorization: `Bearer ${TEST_API_KEY}`, 'Last-Event-ID': '99999999999999-0' }, signal: AbortSignal.timeout(30_000) }));
  release();
  const events = await reading;
  assert.deepEqual(events.map((e) => e.event), ['done']);
  assert.equal((JSON.parse(events[0]?.data ?? '{}') as { status?: string }).status, 'completed');
});

test('a Last-Event-ID at or past the end of a finished batch gets its done at once', { timeout: 60_000 }, async () => {
  const { body } = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'one short batch' }] }) });
  const all = await readSse(await follow(`/v1/batches/${body.batch_id}/events`, TEST_API_KEY));
  const done = all.at(-1);
  assert.equal(done?.event, 'done');
  for (const resumeFrom of [done?.id ?? '', '99999999999999-0']) {
    const resumed = await readSse(await follow(`/v1/batches/${body.batch_id}/events`, TEST_API_KEY, { 'Last-Event-ID': resumeFrom }));
    assert.deepEqual(resumed.map((e) => [e.id, e.event, e.data]), [[done?.id, 'done', done?.data]]);
  }
});
