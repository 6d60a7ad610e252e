/**
 * The attacks a caller with a key made on registration, each as it was made: refused with 400
 * `invalid_pipeline` naming the problem's place, quickly, while `/health` goes on answering (the
 * orchestrator runs in this process, so the event loop measured is its own).
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { createRedisClient, keyspace } from '@switchyard/redis';
import { measureAttack } from './testing/event-loop.js';
import { registerPipeline, startRun } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'pipeline-bounds', inProcessWorkers: false });
});
after(async () => {
  await stack.close();
});

type Refusal = { status: number; body: { error?: { code: string; message: string; details: { problems: { path: string; message: string }[] } } } };

const put = (name: string, body: string, type: string): Promise<Refusal> => stack.json(`/v1/pipelines/${name}`, { method: 'PUT', headers: { 'content-type': type }, body });

const search = { tool: 'search_relevant_information', args: { topic: "'tides'" } };

/**
 * Budgets of a refused attack. The machine is shared and the suite runs files in parallel, so
 * both allow for its load; unbounded, these attacks held the event loop for seconds.
 */
const LOOP_BUDGET_MS = 500;
/** Wall clock, which a machine loaded many times over stretches by seconds: the loop's budget carries the claim. */
const HEALTH_BUDGET_MS = 5000;

/** Sends `attacks` at once; each must be refused naming `place`, within the budgets. */
async function refusedQuickly(t: TestContext, attacks: (() => Promise<Refusal>)[], place: RegExp, message: RegExp): Promise<void> {
  const cost = await measureAttack(stack.api.url, () => Promise.all(attacks.map((attack) => attack())));
  for (const { status, body } of cost.result) {
    assert.equal(status, 400, JSON.stringify(body).slice(0, 500));
    assert.equal(body.error?.code, 'invalid_pipeline');
    const problems = body.error?.details.problems ?? [];
    assert.ok(problems.some((p) => place.test(p.path) && message.test(p.message)), JSON.stringify(problems).slice(0, 500));
  }
  t.diagnostic(`${attacks.length} at once: event loop held at most ${cost.loopBlockedMs.toFixed(1)} ms; slowest /health ${cost.slowestHealthMs.toFixed(1)} ms of ${cost.healthChecks}`);
  assert.ok(cost.loopBlockedMs < LOOP_BUDGET_MS * attacks.length, `the event loop was held ${cost.loopBlockedMs} ms`);
  assert.ok(cost.slowestHealthMs < HEALTH_BUDGET_MS, `/health took ${cost.slowestHealthMs} ms`);
}

test('980 KB of nested YAML brackets, four at once, are refused by size and the orchestrator keeps answering', async (t) => {
  const nested = `${'['.repeat(490_000)}${']'.repeat(490_000)}`;
  await refusedQuickly(t, Array.from({ length: 4 }, () => () => put('nested', nested, 'application/yaml')), /^\(definition\)$/, /is 980000 bytes; a definition is at most 131072 bytes/);
});

test('nested brackets within the size bound are refused from their tokens, as YAML and as JSON, without a parse', async (t) => {
  const nested = `${'['.repeat(60_000)}${']'.repeat(60_000)}`;
  await refusedQuickly(t, [() => put('nested', nested, 'application/yaml')], /^line 1$/, /nests more than 64 levels deep/);
  await refusedQuickly(t, [() => put('nested', nested, 'application/json')], /^\(definition\)$/, /nests deeper than 32 levels/);
});

test('an alias bomb is refused: 99 aliases by their count, 20 of a 100 KB scalar by their size expanded', async (t) => {
  const head = 'name: bomb\nsteps:\n  a:\n    tool: search_relevant_information\n    args: { topic: "\'x\'" }\n';
  await refusedQuickly(t, [() => put('bomb', `${head}big: &b ${'x'.repeat(1000)}\nlist: [${Array(99).fill('*b').join(', ')}]\n`, 'application/yaml')], /^\(definition\)$/, /at most 50 aliases/);
  await refusedQuickly(t, [() => put('bomb', `${head}big: &b ${'x'.repeat(100_000)}\nlist: [${Array(20).fill('*b').join(', ')}]\n`, 'application/yaml')], /^\(definition\)$/, /more than 262144 characters as JSON \(YAML aliases expanded\)/);
  assert.equal((await stack.json('/v1/pipelines/bomb')).status, 404, 'nothing was stored');
});

test('version 100000000000000 is refused at its place, and nothing is stored', async (t) => {
  await refusedQuickly(t, [() => put('huge', JSON.stringify({ name: 'huge', version: 100_000_000_000_000, steps: { a: search } }), 'application/json')], /^version$/, /a version is a whole number from 1 to 1000000000/);
  assert.equal((await stack.json('/v1/pipelines/huge')).status, 404);
});

test('the 1.5 KB schema of nested oneOf over $refs is refused in milliseconds, naming input', async (t) => {
  const defs: Record<string, unknown> = { l0: { type: 'string' } };
  for (let i = 1; i <= 25; i += 1) defs[`l${i}`] = { oneOf: [{ $ref: `#/$defs/l${i - 1}` }, { $ref: `#/$defs/l${i - 1}` }] };
  const definition = JSON.stringify({ name: 'oneofs', input: { type: 'object', properties: { x: { $ref: '#/$defs/l25' } }, $defs: defs }, steps: { a: search } });
  assert.ok(definition.length < 2000);
  await refusedQuickly(t, [() => put('oneofs', definition, 'application/json')], /^input$/, /could apply more than 1000 subschemas/);
});

test('a pattern RE2 cannot run is refused at its place', async (t) => {
  const definition = JSON.stringify({ name: 'backref', input: { type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, steps: { a: search } });
  await refusedQuickly(t, [() => put('backref', definition, 'application/json')], /^input\.properties\.x\.pattern$/, /backreferences/);
});

test('a ReDoS pattern is run in linear time: a run whose 27-character input breaks it is refused at once', async (t) => {
  await registerPipeline(stack, { name: 'redos', input: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^(a+)+$' } } }, steps: { a: search } });
  const cost = await measureAttack(stack.api.url, () => stack.json<{ error: { code: string; details: { problems: { path: string }[] } } }>('/v1/pipelines/redos/runs', { method: 'POST', body: JSON.stringify({ name: `${'a'.repeat(26)}!` }) }));
  t.diagnostic(`event loop held at most ${cost.loopBlockedMs.toFixed(1)} ms; slowest /health ${cost.slowestHealthMs.toFixed(1)} ms`);
  assert.equal(cost.result.status, 400);
  assert.equal(cost.result.body.error.code, 'invalid_input');
  assert.deepEqual(cost.result.body.error.details.problems.map((p) => p.path), ['name']);
  assert.ok(cost.loopBlockedMs < LOOP_BUDGET_MS, `the event loop was held ${cost.loopBlockedMs} ms`);
  assert.ok(cost.slowestHealthMs < HEALTH_BUDGET_MS);
  assert.ok(await startRun(stack, 'redos', { name: 'aaaa' }));
});

test('a schema with $id registers and runs, and breaks no other pipeline that uses the same $id', async () => {
  const input = (type: string) => ({ $id: 'https://example.com/input.json', type: 'object', required: ['x'], properties: { x: { type } } });
  await registerPipeline(stack, { name: 'with-id', input: input('string'), steps: { a: search } });
  await registerPipeline(stack, { name: 'with-id-too', input: input('integer'), steps: { a: search } });
  assert.ok(await startRun(stack, 'with-id', { x: 'text' }));
  assert.ok(await startRun(stack, 'with-id-too', { x: 3 }));
  assert.ok(await startRun(stack, 'with-id', { x: 'again' }));
  assert.equal((await stack.json('/v1/pipelines/with-id-too/runs', { method: 'POST', body: JSON.stringify({ x: 'text' }) })).status, 400);
  assert.equal((await stack.json('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'tides' }) })).status, 202, 'the story still runs');
});

test('a version an older store wrote as 1e+14 answers no 500: it is left out, and deleting the pipeline clears it', async () => {
  const redis = createRedisClient(stack.redisUrl);
  try {
    const hash = (name: string) => `${keyspace(stack.prefix).shared}:pipeline:${name}`;
    const stored = (name: string) => JSON.stringify({ definition: { name, version: 100_000_000_000_000, description: '', input: { type: 'object' }, steps: { a: search } }, services: { a: 'search' }, registered_at: new Date().toISOString() });
    // What the old script wrote: the version formatted by Lua, as field names and as `latest`.
    await redis.hset(hash('story'), 'v:1e+14', stored('story'), 'c:1e+14', 'x', 'latest', '1e+14');
    await redis.hset(hash('legacy'), 'v:1e+14', stored('legacy'), 'c:1e+14', 'x', 'latest', '1e+14');
    await redis.zadd(`${keyspace(stack.prefix).shared}:pipelines`, Date.now(), 'legacy');
    assert.equal((await stack.json('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'tides' }) })).status, 202, 'the story runs its highest version there is');
    const story = await stack.json<{ latest: number }>('/v1/pipelines/story');
    assert.equal(story.status, 200);
    assert.ok(story.body.latest < 1000);
    assert.equal((await stack.json('/v1/pipelines')).status, 200);
    assert.equal((await stack.json('/v1/pipelines/legacy')).status, 404, 'no version it has can be read');
    assert.equal((await stack.json('/v1/pipelines/legacy/runs', { method: 'POST', body: '{}' })).status, 404);
    const deleted = await stack.json<{ versions: number[] }>('/v1/pipelines/legacy', { method: 'DELETE' });
    assert.deepEqual([deleted.status, deleted.body.versions], [200, []]);
    assert.deepEqual(await redis.hkeys(hash('legacy')), [], 'the fields it held are gone');
    assert.equal(await registerPipeline(stack, { name: 'legacy', steps: { a: search } }), 1);
  } finally {
    await redis.quit();
  }
});
