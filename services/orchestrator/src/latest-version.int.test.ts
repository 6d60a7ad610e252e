/**
 * An orchestrator starts a run on the latest version it last read, checked in the round trip that
 * admits the run: a version registered or deleted through another orchestrator (a replica on the
 * same Redis) is what the next start there runs, or refuses, at once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import type { Redis } from 'ioredis';
import { startOrchestrator, type RunningOrchestrator } from './server.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

let stack: TestStack;
let replica: RunningOrchestrator;
let redis: Redis;

before(async () => {
  stack = await startTestStack({ label: 'latest-version', inProcessWorkers: false });
  replica = await startOrchestrator({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'test', level: 'silent' }) });
  redis = createRedisClient(stack.redisUrl);
});
after(async () => {
  redis.disconnect();
  await replica.close();
  await stack.close();
});

const definition = (field: string, description: string) => ({
  name: 'versioned',
  description,
  input: { type: 'object', required: [field], properties: { [field]: { type: 'string' } }, additionalProperties: false },
  steps: { find: { tool: 'search_relevant_information', args: { topic: `input.${field}` } } },
});

/** PUT through the replica: another process than the one the runs are started on. */
async function registerOnReplica(body: Record<string, unknown>): Promise<number> {
  const res = await fetch(`${replica.url}/v1/pipelines/versioned`, { method: 'PUT', headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as { version: number };
  assert.ok(res.status === 201, `PUT answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.version;
}

const start = (input: unknown) => stack.json<{ run_id: string; status: string; pipeline: { version: number } }>('/v1/pipelines/versioned/runs', { method: 'POST', body: JSON.stringify(input) });

/** Runs the test key holds, as the live-run bookkeeping counts them. */
async function held(): Promise<number> {
  const counts = await redis.hvals(runKeys(stack.prefix).liveRunCounts);
  return counts.reduce((sum, count) => sum + Number(count), 0);
}

test('a start runs the version another orchestrator registered since its last start, and is refused once another deleted the pipeline, its admission released', async () => {
  await registerOnReplica(definition('topic', 'first'));
  const first = await start({ topic: 'tides' });
  assert.equal(first.status, 202);
  assert.deepEqual([first.body.status, first.body.pipeline.version], ['queued', 1]);

  // The same input schema: the version known here passes the input, and the admission's read finds it stale.
  const second = await registerOnReplica(definition('topic', 'second'));
  const onSecond = await start({ topic: 'currents' });
  assert.equal(onSecond.status, 202);
  assert.equal(onSecond.body.pipeline.version, second, 'the start ran the version the replica registered');
  const run = await stack.json<{ pipeline: { version: number } }>(`/v1/runs/${onSecond.body.run_id}`);
  assert.equal(run.body.pipeline.version, second, 'and the run pinned it');

  // Another input schema: an input only the new version takes is not refused by the one known here.
  const third = await registerOnReplica(definition('title', 'third'));
  const onThird = await start({ title: 'moons' });
  assert.equal(onThird.status, 202, JSON.stringify(onThird.body));
  assert.equal(onThird.body.pipeline.version, third);
  assert.equal((await start({ topic: 'tides' })).status, 400, 'an input the latest refuses is refused');

  const holding = await held();
  assert.equal(holding, 3, 'the key holds the three runs written');
  const deleted = await fetch(`${replica.url}/v1/pipelines/versioned`, { method: 'DELETE', headers: { authorization: `Bearer ${TEST_API_KEY}` } });
  assert.equal(deleted.status, 200);
  const refused = await start({ title: 'moons' });
  assert.equal(refused.status, 404, JSON.stringify(refused.body));
  assert.equal(await held(), holding, 'the refused start left no admission behind');
});
