/**
 * The bounds on what starts a run, tried with the attacks as they were made: inputs of 10 MB, a
 * batch whose defaults would be stored once per item of 10,000, an AceFlow analysis past its own
 * bound, and bodies nested 100,000 and 5,000,000 deep. Each is refused with a clear 4xx naming the
 * limit, nothing is written, and `/health` keeps answering while the attack runs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import { registerPipeline } from './testing/pipelines.js';
import { whileAnswering } from './testing/responsive.js';
import { startTestStack, type TestStack } from './testing/stack.js';

const MIB = 1024 * 1024;
let stack: TestStack;

before(async () => {
  // No workers: a run accepted here stays queued, which is all these bounds need.
  stack = await startTestStack({ label: 'run-input-bounds', inProcessWorkers: false });
  await registerPipeline(stack, {
    name: 'echo-input',
    input: { type: 'object', properties: { text: { type: 'string' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: "'a harbour'" } } },
  });
});
after(() => stack.close());

interface Refusal {
  error: { code: string; message: string; details: Record<string, unknown> };
}

async function keysNow(): Promise<number> {
  const redis = createRedisClient(stack.redisUrl);
  try {
    return (await scanKeys(redis, keyspace(stack.prefix).pattern)).filter((key) => !key.endsWith('stalled-check')).length;
  } finally {
    await redis.quit();
  }
}

const post = (path: string, body: string) => stack.json<Refusal & { run_id?: string }>(path, { method: 'POST', body });
const health = () => `${stack.api.url}/health`;
const report = (what: string, figures: object) => process.stdout.write(`# ${what}: ${JSON.stringify(figures)}\n`);

test('inputs of 10 MB to a pipeline are refused with 413 input_too_large naming RUN_MAX_INPUT_BYTES, nothing is written, and /health answers meanwhile', async () => {
  const before = await keysNow();
  const body = JSON.stringify({ text: 'x'.repeat(10 * MIB) });
  const attack = await whileAnswering(health(), () => Promise.all(Array.from({ length: 4 }, () => post('/v1/pipelines/echo-input/runs', body))));
  for (const { status, body: refusal } of attack.outcome) {
    assert.equal(status, 413);
    assert.equal(refusal.error.code, 'input_too_large');
    assert.deepEqual([refusal.error.details.variable, refusal.error.details.limit_bytes], ['RUN_MAX_INPUT_BYTES', MIB]);
  }
  assert.equal(await keysNow(), before, 'nothing was written');
  // A loaded machine adds seconds of its own; unbounded, four 10 MB bodies parsed at once held it far longer.
  assert.ok(attack.slowestHealthMs < 5000, `the slowest /health took ${attack.slowestHealthMs.toFixed(0)} ms`);
  report('four 10 MB inputs at once', { elapsed_ms: Math.round(attack.elapsedMs), health_checks: attack.healthChecks, slowest_health_ms: Math.round(attack.slowestHealthMs) });

  // Just under the bound is a run like any other.
  const fits = await post('/v1/pipelines/echo-input/runs', JSON.stringify({ text: 'x'.repeat(MIB - 20) }));
  assert.equal(fits.status, 202, JSON.stringify(fits.body).slice(0, 300));
});

test('a batch whose 900 KB defaults would be stored once for each of 10,000 items is refused with 413 batch_too_large at the first item past the bound, long before 9 GB could be stored', async () => {
  const before = await keysNow();
  const body = JSON.stringify({ pipeline: 'echo-input', items: Array.from({ length: 10_000 }, () => ({})), defaults: { text: 'd'.repeat(900_000) } });
  const attack = await whileAnswering(health(), () => post('/v1/batches', body));
  const { status, body: refusal } = attack.outcome;
  assert.equal(status, 413);
  assert.equal(refusal.error.code, 'batch_too_large');
  assert.equal(refusal.error.details.variable, 'BATCH_MAX_INPUT_BYTES');
  assert.match(String(refusal.error.details.path), /^items\.\d+$/);
  // Storing each item's copy (9 GB) would take minutes; refused at the first, it takes a few ms of
  // CPU, and seconds only on a machine loaded many times over (the figure is printed).
  assert.ok(attack.elapsedMs < 10_000, `refused in ${attack.elapsedMs.toFixed(0)} ms`);
  report('a batch of 10,000 × 900 KB defaults', { elapsed_ms: Math.round(attack.elapsedMs), refused_at: refusal.error.details.path, slowest_health_ms: Math.round(attack.slowestHealthMs) });

  const oneTooLarge = await post('/v1/batches', JSON.stringify({ pipeline: 'echo-input', items: [{ text: 'fine' }, { text: 'x'.repeat(2 * MIB) }] }));
  assert.equal(oneTooLarge.status, 413);
  assert.deepEqual([oneTooLarge.body.error.code, oneTooLarge.body.error.details.path], ['input_too_large', 'items.1']);
  assert.equal(await keysNow(), before, 'nothing was written');
});

test('an AceFlow run takes an analysis of several MB under its own bound, and one past it is refused with 413 naming ACEFLOW_RUN_MAX_INPUT_BYTES', async () => {
  const analysis = (bytes: number) => ({ project_info: { name: 'Big', directory_structure: { listing: 'l'.repeat(bytes) } } });
  const request = (bytes: number) => JSON.stringify({ project: { name: 'bounded-analysis', mode: 'minimal' }, analysis: analysis(bytes) });
  const taken = await post('/v1/aceflow/runs', request(3 * MIB));
  assert.equal(taken.status, 202, JSON.stringify(taken.body).slice(0, 300));
  const before = await keysNow();
  const refused = await post('/v1/aceflow/runs', request(10.5 * MIB));
  assert.equal(refused.status, 413);
  assert.deepEqual([refused.body.error.code, refused.body.error.details.variable], ['input_too_large', 'ACEFLOW_RUN_MAX_INPUT_BYTES']);
  assert.equal(await keysNow(), before, 'nothing was written');
});

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

test('an AceFlow analysis nested 100,000 deep answers 400 naming the depth, at once, and 5,000,000 deep too; /health answers meanwhile', async () => {
  const before = await keysNow();
  const deep = `{"project":{"name":"deep","mode":"minimal"},"analysis":{"project_info":{"x":${nested(100_000)}}}}`;
  const deeper = `{"project":{"name":"deep","mode":"minimal"},"analysis":{"project_info":{"x":${nested(5_000_000)}}}}`;
  const attack = await whileAnswering(health(), () => Promise.all([post('/v1/aceflow/runs', deep), post('/v1/aceflow/runs', deeper), post('/v1/pipelines/echo-input/runs', `{"text":${nested(100_000)}}`)]));
  for (const { status, body } of attack.outcome) {
    assert.equal(status, 400);
    assert.equal(body.error.code, 'invalid_parameters');
    assert.match(body.error.message, /nested deeper than 64 levels/);
    assert.equal(body.error.details.max_depth, 64);
  }
  assert.ok(attack.elapsedMs < 3000, `answered in ${attack.elapsedMs.toFixed(0)} ms`);
  // A loaded machine adds seconds of its own; unbounded, four 10 MB bodies parsed at once held it far longer.
  assert.ok(attack.slowestHealthMs < 5000, `the slowest /health took ${attack.slowestHealthMs.toFixed(0)} ms`);
  assert.equal(await keysNow(), before, 'nothing was written');
  report('bodies nested 100,000 and 5,000,000 deep', { elapsed_ms: Math.round(attack.elapsedMs), slowest_health_ms: Math.round(attack.slowestHealthMs) });
});
