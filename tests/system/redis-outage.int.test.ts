/**
 * Redis taken away mid-batch, by SIGKILL and by an operator's shutdown, and brought back on the
 * same port and data: the API answers 503 within a second while it is gone, /health says why, the
 * workers and the API recover by themselves, and no run is lost, stuck or has an event twice.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { parseExposition, sampleSum } from '@switchyard/metrics/testing';
import { reportRedisOutagesTo, RestartableRedis } from '@switchyard/redis';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { checkStoryText } from '../../services/orchestrator/src/testing/text-checks.js';

let redis: RestartableRedis;
let stack: TestStack;
/** What this process said about Redis, as the services' loggers would have written it. */
const said: { level: 'warn' | 'info'; obj: Record<string, unknown> }[] = [];
reportRedisOutagesTo({ warn: (obj) => said.push({ level: 'warn', obj: obj as Record<string, unknown> }), info: (obj) => said.push({ level: 'info', obj: obj as Record<string, unknown> }) });

before(async () => {
  redis = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
  stack = await startTestStack({ label: 'redis-outage', redisUrl: redis.url, faults: { chunkDelayMs: 5 } });
});
// A test that fails while Redis is down must not leave it down: closing the stack waits on it.
afterEach(async () => {
  if (!redis.running) await redis.up();
});
after(async () => {
  await stack.close();
  await redis.close();
});

async function timed(path: string, init?: RequestInit): Promise<{ status: number; ms: number; body: { error?: { code: string }; status?: string } }> {
  const started = performance.now();
  const res = await stack.request(path, init);
  return { status: res.status, ms: Math.round(performance.now() - started), body: (await res.json()) as { error?: { code: string }; status?: string } };
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('while Redis is down every route answers within a second (503 redis_unavailable, /health degraded), and all recover when it is back', async () => {
  const opened = await fetch(`${stack.api.url}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: TEST_API_KEY }) });
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  await redis.kill();
  const answers = [
    await timed('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lamp in the dark' }) }),
    await timed('/v1/runs?limit=5'),
    await timed('/v1/batches/batch_x'),
    await timed('/health'),
  ];
  // The dashboard's session is a record in Redis: its requests, and opening one, are refused as
  // quickly. (An empty Authorization keeps the stack's helper from adding the test key.)
  const sessionAnswers = [
    await timed('/v1/runs?limit=5', { headers: { cookie, authorization: '' } }),
    await timed('/ui/session', { method: 'POST', headers: { authorization: '' }, body: JSON.stringify({ key: TEST_API_KEY }) }),
  ];
  for (const answer of sessionAnswers) {
    assert.ok(answer.ms < 3000, `a session request answered in ${answer.ms} ms`);
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error?.code, 'redis_unavailable');
  }
  // A wrong key cannot be counted meanwhile: it is still only a wrong key, answered at once.
  const wrong = await timed('/v1/runs?limit=5', { headers: { authorization: 'Bearer not-the-key' } });
  assert.equal(wrong.status, 401);
  assert.ok(wrong.ms < 3000, `a wrong key answered in ${wrong.ms} ms`);
  process.stdout.write(`# while Redis is down: ${JSON.stringify(answers.map((a) => ({ status: a.status, ms: a.ms, code: a.body.error?.code ?? a.body.status })))}\n`);
  for (const answer of answers) assert.ok(answer.ms < 3000, `answered in ${answer.ms} ms`);
  for (const answer of answers.slice(0, 3)) assert.equal(answer.body.error?.code, 'redis_unavailable');
  assert.equal(answers[3]?.status, 503);
  assert.equal(answers[3]?.body.status, 'degraded');
  // /metrics still answers at once, saying Redis is down and leaving out what only Redis knows.
  const scraped = performance.now();
  const metrics = parseExposition(await (await fetch(`${stack.api.url}/metrics`)).text());
  assert.ok(performance.now() - scraped < 1000, 'metrics answered within a second');
  assert.equal(sampleSum(metrics, 'switchyard_redis_up'), 0);
  assert.equal(metrics.get('switchyard_queue_jobs')?.samples.length, 0);

  await redis.up();
  await until(async () => (await stack.request('/v1/runs?limit=1')).status === 200, 15_000, 'the API to recover');
  const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lamp relit' }) });
  const run = await stack.waitForRun(body.run_id, 30_000);
  assert.equal(run.status, 'completed', 'the workers recovered by themselves');
  process.stdout.write(`# said about the outage: ${JSON.stringify(said)}\n`);
  assert.deepEqual(said.map((line) => line.level), ['warn', 'info'], 'one line when Redis went away, one when it came back');
  assert.ok(typeof said[1]?.obj.outage_ms === 'number');
});

for (const outage of ['kill', 'shutdown'] as const) {
  test(`a batch across a Redis ${outage === 'kill' ? 'SIGKILL' : 'shutdown'} and restart loses nothing, leaves nothing stuck and has no event twice`, async () => {
    const items = Array.from({ length: 12 }, (_, i) => ({ topic: `a harbour after the storm ${outage} ${i}` }));
    const created = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items }) });
    assert.equal(created.status, 202);
    // Mid-batch: some stories are streaming their sections.
    await readSse(await stack.request(`/v1/runs/${created.body.run_ids[0]}/events`), (e) => e.event === 'content');
    await (outage === 'kill' ? redis.kill() : redis.shutdown());
    await new Promise((r) => setTimeout(r, 1500)); // an outage of a second and a half
    await redis.up();

    const figures = { runs: items.length, completed: 0, lost: 0, stuck: 0, duplicated_stage_events: 0, duplicated_done: 0, doubled_sections: 0 };
    for (const runId of created.body.run_ids) {
      const res = await stack.request(`/v1/runs/${runId}`);
      if (res.status === 404) {
        figures.lost += 1;
        continue;
      }
      const run = await stack.waitForRun(runId, 60_000).catch(() => null);
      if (!run) {
        figures.stuck += 1;
        continue;
      }
      if (run.status === 'completed') figures.completed += 1;
      const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
      const stageEvents = events.filter((e) => e.event === 'stage').map((e) => e.data);
      figures.duplicated_stage_events += stageEvents.length - new Set(stageEvents).size;
      figures.duplicated_done += Math.max(0, events.filter((e) => e.event === 'done').length - 1);
      if (run.status === 'completed') figures.doubled_sections += checkStoryText(events, run.result as { sections: { name: string; content: string }[] }).mismatched.length;
    }
    process.stdout.write(`# Redis ${outage} mid-batch: ${JSON.stringify(figures)}\n`);
    assert.deepEqual({ lost: figures.lost, stuck: figures.stuck, duplicated_stage_events: figures.duplicated_stage_events, duplicated_done: figures.duplicated_done, doubled_sections: figures.doubled_sections }, { lost: 0, stuck: 0, duplicated_stage_events: 0, duplicated_done: 0, doubled_sections: 0 });
    assert.equal(figures.completed, items.length);
  });
}
