/**
 * Schedules over the API: what PUT refuses (each problem naming its field, hostile sizes
 * included), a cron schedule's next tick, and an interval schedule ticking, paused, resumed and
 * deleted, against a real stack (Redis, workers, tool services).
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { Queue } from 'bullmq';
import { createPipelineQueues, DEFAULT_RUN_LIMITS, nextCronTime, type RunLimits, PipelineStore, processScheduleTick, QUEUES, RunStore, ScheduleStore, tickRunId } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { ResponseChecker } from './testing/openapi-check.js';
import { registerPipeline } from './testing/pipelines.js';
import { startTestStack, waitFor, type TestStack } from './testing/stack.js';

interface Problem { path: string; message: string }
interface ErrorBody { error: { code: string; message: string; details: { problems?: Problem[] } } }
interface View { name: string; paused: boolean; next_run_at: string | null; last_run: { run_id: string; at: string; status: string | null } | null; input: Record<string, unknown> }

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'schedules', scheduleLimits: { maxSchedules: 3, inputBytes: 4096 } });
  await registerPipeline(stack, {
    name: 'sched-find',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' }, tags: { type: 'array' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } },
  });
});
after(() => stack.close());

const put = (name: string, body: unknown) => stack.json<View & ErrorBody>(`/v1/schedules/${name}`, { method: 'PUT', body: JSON.stringify(body) });
const paths = (body: ErrorBody) => (body.error.details.problems ?? []).map((p) => p.path);


/** What a worker's tick processing is given, on a connection of the test's own (closed after it). */
function tickDeps(t: TestContext, limits?: RunLimits) {
  const redis = createRedisClient(stack.redisUrl);
  const store = new RunStore({ redis, prefix: stack.prefix, ...(limits ? { limits } : {}) });
  const queues = createPipelineQueues({ connection: redis, prefix: stack.prefix });
  const schedules = new ScheduleStore({ redis, prefix: stack.prefix });
  t.after(async () => {
    await queues.close();
    await schedules.close();
    await redis.quit();
  });
  return { redis, schedules, deps: { store, queues, schedules, pipelines: new PipelineStore({ redis, prefix: stack.prefix }) } };
}

test('a schedule with a bad cron, an unknown pipeline, a bad input, a short interval or an unknown time zone is refused with 400 naming the field', async () => {
  const cases: [unknown, string][] = [
    [{ pipeline: 'sched-find', cron: 'every tuesday', input: { topic: 'x' } }, 'cron'],
    [{ pipeline: 'sched-nothing', every: '1m', input: { topic: 'x' } }, 'pipeline'],
    [{ pipeline: 'sched-find', version: 99, every: '1m', input: { topic: 'x' } }, 'version'],
    [{ pipeline: 'sched-find', every: '1m', input: { topic: 3 } }, 'input.topic'],
    [{ pipeline: 'sched-find', every: '1m', input: {} }, 'input.topic'],
    [{ pipeline: 'sched-find', every: '500ms', input: { topic: 'x' } }, 'every'],
    [{ pipeline: 'sched-find', every: 999, input: { topic: 'x' } }, 'every'],
    [{ pipeline: 'sched-find', cron: '0 * * * *', timezone: 'Mars/Olympus', input: { topic: 'x' } }, 'timezone'],
    [{ pipeline: 'sched-find', input: { topic: 'x' } }, 'cron'],
    [{ pipeline: 'sched-find', cron: '0 * * * *', every: '1m', input: { topic: 'x' } }, 'every'],
    [{ pipeline: 'sched-find', every: '1m', input: { topic: 'x' }, extra: true }, ''],
  ];
  for (const [body, field] of cases) {
    const { status, body: answer } = await put('refused', body);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(answer.error.code, 'invalid_schedule');
    if (field) assert.ok(paths(answer).includes(field), `${JSON.stringify(body)} names ${field}: ${JSON.stringify(answer.error)}`);
  }
  assert.equal((await stack.json('/v1/schedules/refused')).status, 404, 'nothing refused was stored');
});

test('a hostile schedule is refused by its bounds: an input past SCHEDULE_MAX_INPUT_BYTES names input, a body past the read limit is 413, a bad name is 404, and past SCHEDULES_MAX is 409', async () => {
  const large = await put('large', { pipeline: 'sched-find', every: '1m', input: { topic: 'x'.repeat(5000) } });
  assert.equal(large.status, 400);
  assert.deepEqual(paths(large.body), ['input']);
  const huge = await stack.request('/v1/schedules/huge', { method: 'PUT', body: JSON.stringify({ pipeline: 'sched-find', every: '1m', input: { topic: 'x'.repeat(3 * 1024 * 1024) } }) });
  assert.equal(huge.status, 413);
  assert.equal((await stack.json('/health')).status, 200, 'the API still answers');
  assert.equal((await put('bad.name', { pipeline: 'sched-find', every: '1m', input: { topic: 'x' } })).status, 404);
  for (const name of ['cap-1', 'cap-2', 'cap-3']) assert.equal((await put(name, { pipeline: 'sched-find', cron: '0 0 1 1 *', input: { topic: name } })).status, 201);
  const over = await put('cap-4', { pipeline: 'sched-find', cron: '0 0 1 1 *', input: { topic: 'x' } });
  assert.equal(over.status, 409);
  assert.equal(over.body.error.code, 'schedule_limit');
  assert.equal((await put('cap-1', { pipeline: 'sched-find', cron: '0 0 2 1 *', input: { topic: 'again' } })).status, 200, 'replacing one is no new one');
  for (const name of ['cap-1', 'cap-2', 'cap-3']) assert.equal((await stack.json(`/v1/schedules/${name}`, { method: 'DELETE' })).status, 200);
});

test("a cron schedule lists its next run in its time zone; paused it has none, resumed it has it again, deleted it is gone", async () => {
  const made = await put('nightly', { pipeline: 'sched-find', cron: '30 2 * * *', timezone: 'Europe/Paris', input: { topic: 'night', tags: [] } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.deepEqual(made.body.input, { topic: 'night', tags: [] }, 'an empty list in the input is kept as a list');
  const expected = nextCronTime('30 2 * * *', 'Europe/Paris').toISOString();
  const listed = await stack.json<{ schedules: View[]; total: number }>('/v1/schedules');
  const nightly = listed.body.schedules.find((s) => s.name === 'nightly');
  assert.equal(nightly?.next_run_at, expected);
  assert.equal(nightly?.last_run, null);
  const paused = await stack.json<View>('/v1/schedules/nightly/pause', { method: 'POST' });
  assert.equal(paused.body.paused, true);
  assert.equal(paused.body.next_run_at, null);
  assert.equal((await put('nightly', { pipeline: 'sched-find', cron: '30 2 * * *', timezone: 'Europe/Paris', input: { topic: 'night' } })).body.paused, true, 'replacing a paused schedule keeps it paused');
  const resumed = await stack.json<View>('/v1/schedules/nightly/resume', { method: 'POST' });
  assert.equal(resumed.body.next_run_at, expected);
  assert.equal((await stack.json('/v1/schedules/nightly', { method: 'DELETE' })).status, 200);
  assert.equal((await stack.json('/v1/schedules/nightly')).status, 404);
  assert.equal((await stack.json('/v1/schedules/nightly', { method: 'DELETE' })).status, 404);
});

test('an interval schedule starts runs; paused it starts none, resumed it starts them again, deleted it starts no more', async () => {
  const runsOf = async () => (await stack.json<{ runs: { run_id: string }[] }>('/v1/runs?pipeline=sched-find&limit=200')).body.runs.length;
  assert.equal((await put('every-second', { pipeline: 'sched-find', every: '1s', input: { topic: 'ticks' } })).status, 201);
  const view = await waitFor(() => stack.json<View>('/v1/schedules/every-second'), ({ body }) => body.last_run?.status === 'completed', 'a tick has run to its end', 15_000);
  assert.match(view.body.last_run?.run_id ?? '', /^run_[0-9a-f]{32}$/);
  const redis = createRedisClient(stack.redisUrl);
  const ticks = new Queue(QUEUES.scheduleTick, { connection: redis, prefix: stack.prefix });
  const idle = () => waitFor(() => ticks.getJobCounts('wait', 'active', 'delayed', 'prioritized'), (c) => Object.values(c).every((n) => n === 0), 'no tick is queued or in hand');
  await stack.json('/v1/schedules/every-second/pause', { method: 'POST' });
  // A tick already being processed may still start its run: count from once none is left.
  await idle();
  const before = await runsOf();
  // Three intervals pass with no run: watched, not slept through blindly.
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    assert.equal(await runsOf(), before, 'a paused schedule starts no run');
    await new Promise((r) => setTimeout(r, 200));
  }
  await stack.json('/v1/schedules/every-second/resume', { method: 'POST' });
  await waitFor(runsOf, (n) => n >= before + 2, 'the resumed schedule starts runs again', 15_000);
  await stack.json('/v1/schedules/every-second', { method: 'DELETE' });
  await idle();
  const afterDelete = await runsOf();
  await ticks.close();
  await redis.quit();
  const end = Date.now() + 2500;
  while (Date.now() < end) {
    assert.equal(await runsOf(), afterDelete, 'a deleted schedule starts no run');
    await new Promise((r) => setTimeout(r, 200));
  }
});

test('a tick processed twice at once, and again later, starts one run', async (t) => {
  const { deps } = tickDeps(t);
  assert.equal((await put('twice', { pipeline: 'sched-find', cron: '0 0 1 1 *', input: { topic: 'twice' } })).status, 201);
  const job = { id: 'repeat:twice:1767225600000', data: { schedule: 'twice' }, opts: {}, timestamp: Date.now() };
  const outcomes = await Promise.all([processScheduleTick(deps, job), processScheduleTick(deps, job)]);
  const again = await processScheduleTick(deps, job);
  const ids = new Set([...outcomes, again].map((o) => ('run_id' in o ? o.run_id : '')));
  assert.equal(ids.size, 1, JSON.stringify(outcomes));
  assert.deepEqual(outcomes.map((o) => o.outcome).sort(), ['existed', 'started']);
  const runId = [...ids][0] ?? '';
  assert.equal((await stack.waitForRun(runId)).status, 'completed');
  const listed = (await stack.json<{ runs: { run_id: string }[] }>('/v1/runs?pipeline=sched-find&limit=200')).body.runs.filter((r) => r.run_id === runId);
  assert.equal(listed.length, 1);
  const view = await stack.json<View>('/v1/schedules/twice');
  assert.deepEqual(view.body.last_run, { run_id: runId, at: '2026-01-01T00:00:00.000Z', status: 'completed' });
  await stack.json('/v1/schedules/twice', { method: 'DELETE' });
});

test("a schedule's runs are held by the schedule under the bound of live runs per key: a tick past it starts nothing, and the next one after room is made starts its run", async (t) => {
  const { deps, redis } = tickDeps(t, { ...DEFAULT_RUN_LIMITS, liveRunsPerKey: 1 });
  assert.equal((await put('held', { pipeline: 'sched-find', cron: '0 0 1 1 *', input: { topic: 'held' } })).status, 201);
  const { store } = deps;
  const tick = (ms: number) => ({ id: `repeat:held:${ms}`, data: { schedule: 'held' }, opts: {}, timestamp: Date.now() });
  // Another live run held by the schedule fills its bound of 1.
  const filler = `run_${'f'.repeat(32)}`;
  assert.equal((await store.liveRuns.admit('schedule:held', [filler], 1)).admitted, true);
  assert.deepEqual(await processScheduleTick(deps, tick(1767225600000)), { outcome: 'skipped', reason: 'too_many_runs' });
  assert.equal(await redis.exists(store.keys.run(tickRunId(stack.prefix, 'held', 1767225600000))), 0, 'the refused tick left no run and no claim');
  await store.liveRuns.release([filler]);
  const started = await processScheduleTick(deps, tick(1767225660000));
  assert.equal(started.outcome, 'started', JSON.stringify(started));
  const run = await stack.waitForRun('run_id' in started ? started.run_id : '');
  assert.equal(run.status, 'completed');
  assert.equal(await store.liveRuns.held('schedule:held'), 0, 'its end released it');
  await stack.json('/v1/schedules/held', { method: 'DELETE' });
});

test("a schedule echoes its interval as given, and a tick taken after a full outage runs what its catch_up says: none, the latest, or each missed one up to catch_up_max", async (t) => {
  const { deps } = tickDeps(t);
  const hour = 3_600_000;
  // The tick BullMQ kept while every worker was down: due 3½ hours ago, three more due since.
  const due = Date.now() - 3.5 * hour;
  const tickOf = (name: string) => ({ id: `repeat:${name}:${due}`, data: { schedule: name }, opts: {}, timestamp: due });
  const outcomes: Record<string, unknown> = {};
  t.after(async () => {
    for (const name of ['cu-none', 'cu-latest', 'cu-all']) await stack.json(`/v1/schedules/${name}`, { method: 'DELETE' });
  });
  for (const [name, policy] of [['cu-none', { catch_up: 'none' }], ['cu-latest', {}], ['cu-all', { catch_up: 'all', catch_up_max: 3 }]] as const) {
    const created = await put(name, { pipeline: 'sched-find', every: '1h', input: { topic: name }, ...policy });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const view = created.body as unknown as { every: unknown; every_ms: number; catch_up: string; catch_up_max: number | null };
    assert.deepEqual([view.every, view.every_ms, view.catch_up, view.catch_up_max], ['1h', hour, policy.catch_up ?? 'latest', name === 'cu-all' ? 3 : null]);
    outcomes[name] = await processScheduleTick(deps, tickOf(name));
  }
  assert.deepEqual(outcomes['cu-none'], { outcome: 'skipped', reason: 'missed' });
  const latest = outcomes['cu-latest'] as { outcome: string; run_id: string; caught_up?: string[] };
  assert.equal(latest.outcome, 'started');
  assert.equal(latest.caught_up, undefined);
  const all = outcomes['cu-all'] as { outcome: string; run_id: string; caught_up: string[] };
  assert.equal(all.caught_up.length, 2, 'three runs in all, the latest three ticks');
  assert.equal(latest.run_id, tickRunId(stack.prefix, 'cu-latest', due + 3 * hour), 'latest: the run of the latest tick due');
  assert.deepEqual([...all.caught_up, all.run_id], [1, 2, 3].map((h) => tickRunId(stack.prefix, 'cu-all', due + h * hour)), 'all: the runs of the latest three ticks, oldest first');
  for (const runId of [latest.run_id, all.run_id, ...all.caught_up]) assert.equal((await stack.waitForRun(runId)).status, 'completed');
  const refused = await put('cu-bad', { pipeline: 'sched-find', every: '1h', input: { topic: 'x' }, catch_up_max: 5 });
  assert.equal(refused.status, 400);
  assert.deepEqual(paths(refused.body), ['catch_up_max']);
});

test('a tick taken late after its scheduler was removed starts its own run only: no later tick is owed', async (t) => {
  t.after(() => stack.json('/v1/schedules/cu-gone', { method: 'DELETE' }).then(() => undefined));
  const { deps, schedules } = tickDeps(t);
  const hour = 3_600_000;
  assert.equal((await put('cu-gone', { pipeline: 'sched-find', every: '1h', input: { topic: 'gone' } })).status, 201);
  await schedules.queue.removeJobScheduler('cu-gone');
  const due = Date.now() - 3.5 * hour;
  const outcome = await processScheduleTick(deps, { id: `repeat:cu-gone:${due}`, data: { schedule: 'cu-gone' }, opts: {}, timestamp: due });
  assert.deepEqual(outcome, { outcome: 'started', run_id: tickRunId(stack.prefix, 'cu-gone', due) });
  assert.equal((await stack.waitForRun(tickRunId(stack.prefix, 'cu-gone', due))).status, 'completed');
});

test('a tick taken again after its processor died runs its own tick, however late: BullMQ made the ticks since', async (t) => {
  t.after(() => stack.json('/v1/schedules/cu-retaken', { method: 'DELETE' }).then(() => undefined));
  const { deps } = tickDeps(t);
  const hour = 3_600_000;
  assert.equal((await put('cu-retaken', { pipeline: 'sched-find', every: '1h', input: { topic: 'retaken' } })).status, 201);
  const due = Date.now() - 3.5 * hour;
  const outcome = await processScheduleTick(deps, { id: `repeat:cu-retaken:${due}`, data: { schedule: 'cu-retaken' }, opts: {}, timestamp: due, stalledCounter: 1, attemptsMade: 0 });
  assert.ok(outcome.outcome === 'started' && outcome.caught_up?.includes(tickRunId(stack.prefix, 'cu-retaken', due)), JSON.stringify(outcome));
  assert.equal((await stack.waitForRun(tickRunId(stack.prefix, 'cu-retaken', due))).status, 'completed');
});

test('every schedule route answers as the OpenAPI document says, refusals included', async () => {
  const checker = new ResponseChecker(await (await fetch(`${stack.api.url}/openapi.json`)).json());
  const body = (value: unknown): RequestInit => ({ method: 'PUT', body: JSON.stringify(value) });
  const one = { method: 'put', path: '/v1/schedules/{name}' };
  await checker.check(one, await stack.request('/v1/schedules/documented', body({ pipeline: 'sched-find', cron: '0 0 1 1 *', input: { topic: 'doc' } })), 201);
  await checker.check(one, await stack.request('/v1/schedules/documented', body({ pipeline: 'sched-find', every: '1h', input: { topic: 'doc' } })), 200);
  await checker.check(one, await stack.request('/v1/schedules/documented', body({ pipeline: 'sched-find', cron: 'nope', input: { topic: 'doc' } })), 400);
  await checker.check(one, await stack.request('/v1/schedules/bad.name', body({ pipeline: 'sched-find', every: '1h', input: { topic: 'doc' } })), 404);
  await checker.check({ method: 'get', path: '/v1/schedules' }, await stack.request('/v1/schedules?limit=1'));
  await checker.check({ method: 'get', path: '/v1/schedules' }, await stack.request('/v1/schedules?limit=0'), 400);
  await checker.check({ method: 'get', path: '/v1/schedules/{name}' }, await stack.request('/v1/schedules/documented'));
  await checker.check({ method: 'post', path: '/v1/schedules/{name}/pause' }, await stack.request('/v1/schedules/documented/pause', { method: 'POST' }));
  await checker.check({ method: 'post', path: '/v1/schedules/{name}/resume' }, await stack.request('/v1/schedules/documented/resume', { method: 'POST' }));
  await checker.check({ method: 'post', path: '/v1/schedules/{name}/pause' }, await stack.request('/v1/schedules/nothing/pause', { method: 'POST' }), 404);
  await checker.check({ method: 'delete', path: '/v1/schedules/{name}' }, await stack.request('/v1/schedules/documented', { method: 'DELETE' }));
  await checker.check({ method: 'delete', path: '/v1/schedules/{name}' }, await stack.request('/v1/schedules/documented', { method: 'DELETE' }), 404);
});
