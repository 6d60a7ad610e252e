/**
 * Listings tried with the attack as it was made: runs of 10 MB inputs (a deployment that allows
 * them), listed as the dashboard polls them (`limit=50` every 2 s) and with `limit=200`. A listing
 * holds summaries; `fields` adds what a run's own URL gives, a page stopping before its bytes pass
 * the listing budget; batches, a batch's runs and pipelines are paged the same way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import { registerPipeline } from './testing/pipelines.js';
import { whileAnswering } from './testing/responsive.js';
import { startTestStack, type TestStack } from './testing/stack.js';

const MIB = 1024 * 1024;
const RUNS = 10;
let stack: TestStack;
const runIds: string[] = [];

before(async () => {
  // Inputs of 10 MB are allowed here, as a deployment may; no workers, so the runs stay queued.
  stack = await startTestStack({ label: 'run-listing', inProcessWorkers: false, limits: { inputBytes: 11 * MIB } });
  await registerPipeline(stack, { name: 'big-input', input: { type: 'object', properties: { topic: { type: 'string' }, text: { type: 'string' } } }, steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } });
  for (let i = 0; i < RUNS; i += 1) {
    const { status, body } = await stack.json<{ run_id: string }>('/v1/pipelines/big-input/runs', { method: 'POST', body: JSON.stringify({ topic: `harbour ${i} ${'long '.repeat(40)}`, text: `${i}`.padEnd(10 * MIB, 't') }) });
    assert.equal(status, 202);
    runIds.unshift(body.run_id);
  }
});
after(async () => {
  // A hundred megabytes of inputs: given back to the shared Redis at once.
  const redis = createRedisClient(stack.redisUrl);
  const keys = await scanKeys(redis, keyspace(stack.prefix).pattern);
  // One key a command: on a Redis Cluster the keys are in many slots.
  for (let at = 0; at < keys.length; at += 500) await Promise.all(keys.slice(at, at + 500).map((key) => redis.unlink(key)));
  await redis.quit();
  await stack.close();
});

interface Listed {
  run_id: string;
  status: string;
  topic: string | null;
  title: string | null;
  progress: number;
  pipeline: { name: string } | null;
  request?: { text: string };
  stages?: unknown[];
  result?: unknown;
}
interface Page {
  runs: Listed[];
  offset: number;
  limit: number;
  next_offset: number | null;
  truncated: boolean;
}

const report = (what: string, figures: object) => process.stdout.write(`# ${what}: ${JSON.stringify(figures)}\n`);

async function timedList(path: string): Promise<{ status: number; page: Page; bytes: number; ms: number }> {
  const started = performance.now();
  const res = await stack.request(path);
  const text = await res.text();
  return { status: res.status, page: JSON.parse(text) as Page, bytes: Buffer.byteLength(text), ms: performance.now() - started };
}

test('runs of 10 MB inputs are listed as summaries of a few hundred bytes, limit=50 and limit=200 alike, in well under a second, while /health answers', async () => {
  const attack = await whileAnswering(`${stack.api.url}/health`, () => Promise.all([timedList('/v1/runs?limit=50'), timedList('/v1/runs?limit=200')]));
  for (const listed of attack.outcome) {
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.page.runs.map((run) => run.run_id), runIds);
    assert.ok(listed.bytes < 20_000, `${listed.bytes} bytes`);
    assert.ok(listed.ms < 5000, `${listed.ms.toFixed(0)} ms`);
    assert.deepEqual([listed.page.next_offset, listed.page.truncated], [null, false]);
  }
  const [first] = attack.outcome[0]?.page.runs ?? [];
  assert.ok(first && !('request' in first) && !('result' in first) && !('stages' in first), 'no input, result or stages');
  assert.equal(first?.topic?.length, 120, 'the topic is cut to 120 characters');
  assert.match(first?.topic ?? '', /^harbour 9 long .*…$/);
  assert.deepEqual([first?.status, first?.progress, first?.pipeline?.name, first?.title], ['queued', 0, 'big-input', null]);
  report('listing runs of 10 MB inputs', { limit_50: { bytes: attack.outcome[0]?.bytes, ms: Math.round(attack.outcome[0]?.ms ?? 0) }, limit_200: { bytes: attack.outcome[1]?.bytes, ms: Math.round(attack.outcome[1]?.ms ?? 0) }, slowest_health_ms: Math.round(attack.slowestHealthMs) });
  assert.equal((await stack.request('/v1/runs?limit=201')).status, 400);
  assert.equal((await stack.request('/v1/runs?fields=password')).status, 400);
});

test('fields=input,stages adds what the run\'s own URL gives, and a page stops before its bytes pass the budget, saying where the next starts', async () => {
  const first = await timedList('/v1/runs?limit=5&fields=input,stages');
  assert.equal(first.status, 200);
  // 10 MB a run against a 4 MiB budget: one run a page, never none.
  assert.deepEqual(first.page.runs.map((run) => run.run_id), runIds.slice(0, 1));
  assert.deepEqual([first.page.truncated, first.page.next_offset], [true, 1]);
  assert.equal(first.page.runs[0]?.request?.text.length, 10 * MIB);
  assert.equal(first.page.runs[0]?.stages?.length, 1);
  const own = await stack.json<{ request: unknown }>(`/v1/runs/${runIds[0] as string}`);
  assert.deepEqual(first.page.runs[0]?.request, own.body.request, 'as the run\'s own URL gives it');
  const second = await timedList('/v1/runs?limit=5&fields=request&offset=1');
  assert.deepEqual([second.page.runs.map((run) => run.run_id), second.page.next_offset], [runIds.slice(1, 2), 2]);
  report('a listing page with inputs', { bytes: first.bytes, ms: Math.round(first.ms) });
  const last = await timedList(`/v1/runs?limit=5&offset=${RUNS - 1}`);
  assert.deepEqual([last.page.runs.length, last.page.next_offset, last.page.truncated], [1, null, false]);
});

test('batches, a batch\'s runs and pipelines are paged, each page saying where the next starts', async () => {
  const batch = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a mill' }, { topic: 'a ferry' }, { topic: 'a lock' }] }) });
  assert.equal(batch.status, 202);
  const page = await stack.json<{ runs: unknown[]; next_offset: number | null; truncated: boolean }>(`/v1/batches/${batch.body.batch_id}?limit=2`);
  assert.deepEqual([page.body.runs.length, page.body.next_offset, page.body.truncated], [2, 2, false]);
  const rest = await stack.json<{ runs: unknown[]; next_offset: number | null }>(`/v1/batches/${batch.body.batch_id}?offset=2&limit=2`);
  assert.deepEqual([rest.body.runs.length, rest.body.next_offset], [1, null]);
  const batches = await stack.json<{ batches: unknown[]; next_offset: number | null }>('/v1/batches?limit=1');
  assert.deepEqual([batches.body.batches.length, batches.body.next_offset], [1, null]);

  const all = await stack.json<{ pipelines: { name: string }[]; next_offset: number | null }>('/v1/pipelines');
  assert.deepEqual([all.body.pipelines.map((p) => p.name).sort(), all.body.next_offset], [['aceflow', 'big-input', 'research-agent', 'story'], null]);
  const paged: string[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const page: { body: { pipelines: { name: string }[]; next_offset: number | null } } = await stack.json(`/v1/pipelines?limit=1&offset=${offset}`);
    paged.push(...page.body.pipelines.map((p) => p.name));
    offset = page.body.next_offset;
  }
  assert.deepEqual(paged, all.body.pipelines.map((p) => p.name), 'the pages, one pipeline each, make the whole list');
  assert.equal((await stack.request('/v1/pipelines?limit=501')).status, 400);
});
