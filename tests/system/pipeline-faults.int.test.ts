import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { countingAuthor } from '../../services/orchestrator/src/testing/authors.js';
import { finishedRun, registerPipeline, stageOf, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

const author = countingAuthor();
let stack: TestStack;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  stack = await startTestStack({ label: 'pipeline-faults', author, inProcessWorkers: false });
});
afterEach(async () => {
  await workers.killAll();
  stack.tools.services.search.faults.latencyMs = 0;
});
after(async () => {
  await stack.close();
});

const slowMap = (name: string) => ({
  name,
  input: { type: 'object', required: ['topics'], properties: { topics: { type: 'array' } } },
  steps: { each: { tool: 'search_relevant_information', map: 'input.topics', args: { topic: 'item', depth: 1 } } },
  output: '{ "branches": $count(steps.each) }',
});

const readRun = async (runId: string) => (await stack.json<RunBody>(`/v1/runs/${runId}`)).body;
const branchesOf = (run: RunBody) => run.stages.filter((s) => s.name.startsWith('each.'));

test('a worker SIGKILLed in the middle of a map is replaced, and no finished branch is run again', async () => {
  stack.tools.services.search.faults.latencyMs = 300;
  await registerPipeline(stack, slowMap('kill-map'));
  const topics = Array.from({ length: 16 }, (_, i) => `a lock keeper ${i}`);
  const first = await workers.startListening({ WORKER_CONCURRENCY: '4' });
  const calls = author.calls.research;
  const runId = await startRun(stack, 'kill-map', { topics });
  const midway = await waitFor(() => readRun(runId), (run) => branchesOf(run).filter((s) => s.status === 'completed').length >= 4, 'four branches completed');
  await WorkerProcesses.kill(first);
  const doneBeforeKill = new Map(branchesOf(midway).filter((s) => s.status === 'completed').map((s) => [s.name, s.finished_at]));
  workers.start({ WORKER_CONCURRENCY: '4' });
  const run = await finishedRun(stack, runId, 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const branches = branchesOf(run);
  const figures = {
    branches: branches.length,
    completed: branches.filter((s) => s.status === 'completed').length,
    done_before_kill: doneBeforeKill.size,
    redone: branches.filter((s) => doneBeforeKill.has(s.name) && (s.attempts !== 1 || s.finished_at !== doneBeforeKill.get(s.name))).length,
    retried_after_kill: branches.filter((s) => s.attempts > 1).length,
    tool_calls: author.calls.research - calls,
  };
  process.stdout.write(`# SIGKILL mid-map: ${JSON.stringify(figures)}\n`);
  assert.equal(figures.completed, 16);
  assert.equal(figures.redone, 0, 'a branch finished before the kill is never run again');
  // At most the four branches in flight at the kill are called twice.
  assert.ok(figures.tool_calls <= 16 + 4, `${figures.tool_calls} calls`);
  assert.equal((run.result as { branches: number }).branches, 16);
});

test('a run cancelled in the middle of a map aborts its calls rather than waiting them out, and no branch starts after it', async (t) => {
  // Calls far longer than the bound: only aborting them ends the active jobs in time.
  stack.tools.services.search.faults.latencyMs = 10_000;
  await registerPipeline(stack, slowMap('cancel-map'));
  const connection = createRedisClient(stack.redisUrl);
  const queue = new Queue(toolQueue('search'), { connection, prefix: stack.prefix });
  t.after(async () => {
    await queue.close();
    await connection.quit();
  });
  await workers.startListening({ WORKER_CONCURRENCY: '3' });
  const runId = await startRun(stack, 'cancel-map', { topics: Array.from({ length: 12 }, (_, i) => `a weir ${i}`) });
  await waitFor(() => readRun(runId), (run) => branchesOf(run).filter((s) => s.status === 'running').length >= 3, 'three branches running');
  const cancelledAt = Date.now();
  const cancel = await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
  assert.equal(cancel.status, 200);
  await waitFor(async () => (await queue.getActiveCount()) + (await queue.getWaitingCount()), (n) => n === 0, 'no branch job active or waiting', 30_000);
  const stoppedAfterMs = Date.now() - cancelledAt;
  const run = await readRun(runId);
  const startedLate = branchesOf(run).filter((s) => s.started_at && Date.parse(s.started_at) > cancelledAt);
  const figures = { stopped_after_ms: stoppedAfterMs, completed: branchesOf(run).filter((s) => s.status === 'completed').length, cancelled: branchesOf(run).filter((s) => s.status === 'cancelled').length, started_after_cancel: startedLate.length };
  process.stdout.write(`# cancel mid-map: ${JSON.stringify(figures)}\n`);
  assert.equal(run.status, 'cancelled');
  // Aborted, the calls end at once (about 0.2 s on a quiet machine, the figure printed above); waited
  // out, they would last their 10 s. The bound tells the two apart on a machine loaded many times over.
  assert.ok(stoppedAfterMs < 6000, `stopped after ${stoppedAfterMs} ms`);
  assert.equal(startedLate.length, 0);
  assert.equal(figures.cancelled, 12);
});

test('a run keeps the version it started with while a new version is registered, and new runs take the new one', async () => {
  stack.tools.services.search.faults.latencyMs = 500;
  const definition = (tag: string) => ({ name: 'changing', steps: { find: { tool: 'search_relevant_information', args: { topic: "'a canal'" } } }, output: `{ "version": '${tag}', "found": steps.find.metadata.total_results }` });
  assert.equal(await registerPipeline(stack, definition('first')), 1);
  await workers.startListening();
  const oldRun = await startRun(stack, 'changing', {});
  await waitFor(() => readRun(oldRun), (run) => stageOf(run, 'find')?.status === 'running', 'the first run is in flight');
  assert.equal(await registerPipeline(stack, definition('second')), 2);
  const newRun = await startRun(stack, 'changing', {});
  const [finishedOld, finishedNew] = await Promise.all([finishedRun(stack, oldRun), finishedRun(stack, newRun)]);
  assert.deepEqual(finishedOld.pipeline, { name: 'changing', version: 1 });
  assert.equal((finishedOld.result as { version: string }).version, 'first');
  assert.deepEqual(finishedNew.pipeline, { name: 'changing', version: 2 });
  assert.equal((finishedNew.result as { version: string }).version, 'second');
  const pinned = await stack.json<{ run_id: string; pipeline: { version: number } }>('/v1/pipelines/changing/runs?version=1', { method: 'POST', body: '{}' });
  assert.equal(pinned.body.pipeline.version, 1, 'an older version can still be asked for');
});
