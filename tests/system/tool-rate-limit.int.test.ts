/**
 * A tool service's 429 with Retry-After pauses its queue for every worker (issue #42, item 4): two
 * worker processes, the search service answering one call 429 with `Retry-After: 3`; the call
 * waits it out by itself, and no other search step starts on either worker before the pause ends.
 * Prints when the first step of the batch started after the 429.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

let stack: TestStack;
const workers = new WorkerProcesses(() => stack);
before(async () => {
  stack = await startTestStack({ label: 'tool-rate-limit', inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
});

interface RunView {
  status: string;
  stages: { name: string; started_at: string | null }[];
}

test("a tool service's 429 with Retry-After starts none of its steps on any worker until it has passed", { timeout: 180_000 }, async () => {
  await Promise.all([workers.startListening(), workers.startListening()]);
  const search = stack.tools.services.search.faults;
  const retryAfterMs = 3000;
  Object.assign(search, { failureStatus: 429, retryAfterSeconds: retryAfterMs / 1000 });
  // The service runs in this process: the moment it spends its one failure is when it refused.
  let failNext = 1;
  let refusedAt = 0;
  Object.defineProperty(search, 'failNext', {
    get: () => failNext,
    set: (value: number) => {
      if (value < failNext) refusedAt = Date.now();
      failNext = value;
    },
    configurable: true,
  });

  const first = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'lighthouses' }) });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  await waitFor(async () => refusedAt, (at) => at > 0, 'the search service has answered 429', 60_000);
  const batch = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'story', items: Array.from({ length: 6 }, (_, i) => ({ topic: `harbours ${i}` })) }) });
  assert.equal(batch.status, 202, JSON.stringify(batch.body));
  const submittedAfterMs = Date.now() - refusedAt;
  assert.ok(submittedAfterMs < retryAfterMs - 1000, `the batch was submitted during the pause (${submittedAfterMs} ms after the 429)`);

  const runs = await Promise.all([first.body.run_id, ...batch.body.run_ids].map((id) => stack.waitForRun(id, 120_000) as Promise<unknown> as Promise<RunView>));
  const searchStarts = runs.slice(1).map((run) => Date.parse(run.stages.find((stage) => stage.name === 'search')?.started_at ?? ''));
  const soonest = Math.min(...searchStarts) - refusedAt;
  process.stdout.write(`# ${JSON.stringify({ retry_after_ms: retryAfterMs, first_search_step_after_ms: soonest, runs: runs.map((run) => run.status) })}\n`);
  assert.deepEqual(runs.map((run) => run.status), Array.from({ length: 7 }, () => 'completed'), 'every run completed, the refused call after its wait');
  // The pause starts when the worker reads the 429, after the service sent it; a few ms of rounding between clocks at most.
  assert.ok(soonest >= retryAfterMs - 20, `no search step started before the Retry-After passed (the first started ${soonest} ms after the 429)`);
});
