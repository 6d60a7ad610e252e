/**
 * A schedule ticking every second for 30 s over two worker processes, with the orchestrator
 * restarted and one worker killed (SIGKILL) and replaced in the middle: every tick BullMQ's job
 * scheduler made started exactly one run, under the run id made from that tick, and no run is
 * doubled.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { QUEUES, tickRunId, tickTimeOf } from '@switchyard/pipeline';
import { createLogger } from '@switchyard/logger';
import { createRedisClient } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator } from '../../services/orchestrator/src/server.js';
import { registerPipeline } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

let stack: TestStack;
let restarted: RunningOrchestrator | undefined;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  stack = await startTestStack({ label: 'schedule-ticks', inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await restarted?.close();
  await stack.close();
});

const TICKING_MS = 30_000;

test('a schedule of every 1s over 30 s, two worker processes, an orchestrator restart and a killed worker: one run per tick, none doubled', async (t) => {
  const connection = createRedisClient(stack.redisUrl);
  const ticks = new Queue(QUEUES.scheduleTick, { connection, prefix: stack.prefix });
  t.after(async () => {
    await ticks.close();
    await connection.quit();
  });
  let base = stack.api.url;
  const api = async <T,>(path: string, init: RequestInit = {}) => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' } });
    return { status: res.status, body: (await res.json()) as T };
  };
  const [first] = await Promise.all([workers.startListening(), workers.startListening()]);
  await registerPipeline(stack, { name: 'ticked', input: { type: 'object', required: ['topic'] }, steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } });
  assert.equal((await api('/v1/schedules/ticker', { method: 'PUT', body: JSON.stringify({ pipeline: 'ticked', every: '1s', input: { topic: 'the tide' } }) })).status, 201);
  const startedAt = Date.now();
  const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, startedAt + ms - Date.now())));

  await at(TICKING_MS / 3);
  await stack.api.close();
  restarted = await startOrchestrator({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'test', level: 'silent' }) });
  base = restarted.url;
  assert.equal((await api<{ paused: boolean }>('/v1/schedules/ticker')).body.paused, false, 'the restarted orchestrator reads the schedule');

  await at((2 * TICKING_MS) / 3);
  await WorkerProcesses.kill(first as NonNullable<typeof first>);
  await workers.startListening();

  await at(TICKING_MS);
  // The ticks stop at BullMQ's end (the scheduler and its next tick removed), the schedule kept:
  // every tick made is then processed with its schedule there, so each must have started its run.
  await ticks.removeJobScheduler('ticker');
  await waitFor(() => ticks.getJobCounts('wait', 'delayed', 'active', 'prioritized'), (c) => Object.values(c).every((n) => n === 0), 'no tick is left to process', 20_000);

  const done = await ticks.getJobs(['completed', 'failed'], 0, -1);
  const tickJobs = done.filter((job) => job.id?.startsWith('repeat:ticker:'));
  const failed = await ticks.getJobs(['failed']);
  assert.equal(failed.length, 0, `no tick failed: ${failed.map((j) => j.failedReason).join('; ')}`);
  const tickTimes = tickJobs.map((job) => tickTimeOf(job)).sort((a, b) => a - b);
  assert.equal(new Set(tickTimes).size, tickTimes.length, 'BullMQ made each tick once');
  const runs = (await api<{ runs: { run_id: string }[] }>('/v1/runs?pipeline=ticked&limit=200')).body.runs.map((r) => r.run_id);
  console.log(`ticks: ${tickTimes.length}, runs: ${runs.length}, distinct runs: ${new Set(runs).size}, over ${Date.now() - startedAt} ms`);
  assert.ok(tickTimes.length >= 25, `about one tick a second for 30 s (${tickTimes.length})`);
  assert.equal(runs.length, tickTimes.length, 'the run count is the tick count');
  assert.equal(new Set(runs).size, runs.length, 'no run is listed twice');
  assert.deepEqual(new Set(runs), new Set(tickTimes.map((ms) => tickRunId(stack.prefix, 'ticker', ms))), "each run is its tick's");
  assert.equal((await api('/v1/schedules/ticker', { method: 'DELETE' })).status, 200);
});
