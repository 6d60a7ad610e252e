/**
 * Runs that nothing in the stage code will end: a job that kills every worker that runs it (taken
 * for poison), jobs removed from under a run. The reconciler in the worker processes ends them `failed`, with a
 * `done` event and their batch's counts, and never touches a healthy run.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { Queue } from 'bullmq';
import { jobId, toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { registerPipeline, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';
import { POISON_AFTER_SOLO_DEATHS, SUSPECT_AFTER_STALLS } from '../../services/workers/src/engine/solo-jobs.js';

let stack: TestStack;
const workers = new WorkerProcesses(() => stack);
/** Sweeps every half second in these tests: a stranded run must end within a few of them. */
const FAST_RECONCILE = { RECONCILE_INTERVAL_MS: '500' };

before(async () => {
  stack = await startTestStack({ label: 'stranded', inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
});

async function queueOf(name: string, t: { after(fn: () => Promise<void>): void }): Promise<Queue> {
  const connection = createRedisClient(stack.redisUrl);
  const queue = new Queue(name, { connection, prefix: stack.prefix });
  t.after(async () => {
    await queue.close();
    await connection.quit();
  });
  return queue;
}

test('a run whose job loses its worker every time it runs, also alone, ends failed as poison_job with its done event and counts in its batch', async (t) => {
  const search = stack.tools.services.search.faults;
  search.latencyMs = 600_000; // the search never answers: each worker dies holding the job
  t.after(() => (search.latencyMs = 0));
  t.after(() => workers.killAll());
  const searchQueue = await queueOf(toolQueue('search'), t);
  const created = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a clock that stalls' }] }) });
  const runId = created.body.run_ids[0] as string;

  // Twice among others, then twice while it runs alone (solo-jobs.ts): the job is poison.
  const deaths = SUSPECT_AFTER_STALLS + POISON_AFTER_SOLO_DEATHS;
  for (let kill = 1; kill <= deaths; kill += 1) {
    // Listening before the clock starts: a Node process's start is slow on a busy machine.
    const worker = await workers.startListening(FAST_RECONCILE);
    await waitFor(
      async () => (await stack.json<{ stages: { name: string; attempts: number }[] }>(`/v1/runs/${runId}`)).body.stages.find((s) => s.name === 'search')?.attempts ?? 0,
      (attempts) => attempts >= kill,
      `the search stage started ${kill} times`,
    );
    await WorkerProcesses.kill(worker);
  }
  const killedAt = Date.now();
  workers.start(FAST_RECONCILE); // it takes the job again and finds it poison
  const run = await stack.waitForRun(runId, 30_000);
  const endedAfterMs = Date.now() - killedAt;
  // The run is failed before its job is moved to failed (one more round trip of the same worker).
  const state = await waitFor(() => searchQueue.getJobState(jobId(runId, 'search')), (s) => s !== 'active', 'the poison job has left active', 10_000).catch(() => 'active');
  process.stdout.write(`# poison job: run ${String(run.status)} ${endedAfterMs} ms after the last kill; search job ${state}\n`);
  assert.equal(run.status, 'failed');
  const error = run.error as { code: string; stage: string; message: string };
  process.stdout.write(`# poison job ended by ${error.code}: ${error.message}\n`);
  assert.equal(error.code, 'poison_job');
  assert.equal(error.stage, 'search');
  assert.equal(state, 'failed', 'the job failed, not run again');
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.equal(events.filter((e) => e.event === 'done').length, 1);
  const batch = await readSse(await stack.request(`/v1/batches/${created.body.batch_id}/events`), (e) => e.event === 'done');
  const counts = (JSON.parse(batch.at(-1)?.data ?? '{}') as { counts?: Record<string, number> }).counts;
  assert.equal(counts?.failed, 1, 'the batch counts the run and finishes');
});

/** Starts the workers and waits for `runId` to end failed as stranded, its message matching `message`. */
async function expectStranded(t: TestContext, runId: string, message: RegExp): Promise<Record<string, unknown>> {
  t.after(() => workers.killAll());
  await workers.startListening(FAST_RECONCILE);
  const run = await stack.waitForRun(runId, 20_000);
  assert.equal(run.status, 'failed');
  assert.equal((run.error as { code: string }).code, 'run_stranded');
  assert.match((run.error as { message: string }).message, message);
  return run;
}

test('a run whose first job was removed is failed as stranded, its next step never run without it', async (t) => {
  const searchQueue = await queueOf(toolQueue('search'), t);
  const outlineQueue = await queueOf(toolQueue('outline'), t);
  const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a letter nobody sent' }) });
  // No worker runs yet: remove the run's first step's job. Its outline waits on it as its flow
  // parent, and BullMQ releases a parent whose last child is removed.
  assert.equal(await outlineQueue.getJobState(jobId(body.run_id, 'outline')), 'waiting-children');
  await searchQueue.remove(jobId(body.run_id, 'search'));
  const run = await expectStranded(t, body.run_id, /search[^.]* gone/);
  assert.ok(!(run.stages as { name: string; attempts: number }[]).some((stage) => stage.name === 'outline' && stage.attempts > 0), 'the outline never ran');
});

test('a run whose jobs were all removed is failed by the reconciler', async (t) => {
  const searchQueue = await queueOf(toolQueue('search'), t);
  const outlineQueue = await queueOf(toolQueue('outline'), t);
  const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a letter nobody read' }) });
  // Nothing is left to run or to release.
  await outlineQueue.remove(jobId(body.run_id, 'outline'));
  await searchQueue.remove(jobId(body.run_id, 'search'));
  await expectStranded(t, body.run_id, /search: gone/);
});

test('a run of a user-defined pipeline whose root job was removed is failed as stranded, the step needing it never run', async (t) => {
  await registerPipeline(stack, {
    name: 'two-roots',
    steps: {
      left: { tool: 'search_relevant_information', args: { topic: "'the left bank'" } },
      right: { tool: 'search_relevant_information', args: { topic: "'the right bank'" } },
      // Two needs: not a flow parent, added by whichever root completes last.
      both: { tool: 'polish_story', needs: ['left', 'right'], args: { draft: "steps.left.results[0].snippet & ' ' & steps.right.results[0].snippet" } },
    },
  });
  const searchQueue = await queueOf(toolQueue('search'), t);
  const runId = await startRun(stack, 'two-roots', {});
  await searchQueue.remove(jobId(runId, 'left'));
  const run = await expectStranded(t, runId, /left[^.]* gone/);
  assert.ok(!(run.stages as { name: string; attempts: number }[]).some((stage) => stage.name === 'both' && stage.attempts > 0), 'the step needing it never ran');
});

test('the reconciler sweeping every 100 ms leaves a healthy batch alone: every story completes', async (t) => {
  t.after(() => workers.killAll());
  workers.start({ RECONCILE_INTERVAL_MS: '100' });
  workers.start({ RECONCILE_INTERVAL_MS: '100' });
  const items = Array.from({ length: 20 }, (_, i) => ({ topic: `a healthy tide ${i}` }));
  const created = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items }) });
  const batch = await readSse(await stack.request(`/v1/batches/${created.body.batch_id}/events`), (e) => e.event === 'done');
  const counts = (JSON.parse(batch.at(-1)?.data ?? '{}') as { counts?: Record<string, number> }).counts;
  process.stdout.write(`# healthy batch under a 100 ms reconciler: ${JSON.stringify(counts)}\n`);
  assert.equal(counts?.completed, 20);
});
