/**
 * A service that is down, not flaky: its breaker opens, and the stages that meet it wait (delayed
 * jobs) without spending attempts, until the service is back or the wait budget is spent; then the
 * run fails with the service's own last error, never `circuit_open`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Job } from 'bullmq';
import { jobId } from '@switchyard/pipeline';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
const BREAKER_WAIT_BUDGET_MS = 8000;

before(async () => {
  stack = await startTestStack({
    label: 'breaker-wait',
    clientRetries: 1,
    breaker: { minimumCalls: 2, windowMs: 10_000, halfOpenAfterMs: 300 },
    budget: { maxAttempts: 2, maxBreakerWaitMs: BREAKER_WAIT_BUDGET_MS },
  });
});
after(() => stack.close());

async function startStory(topic: string): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) });
  assert.equal(status, 202);
  return body.run_id;
}

async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a stage that meets an open breaker waits without spending attempts and completes once the service is back', async (t) => {
  const outline = stack.tools.services.outline.faults;
  outline.failureRate = 1;
  outline.unhealthy = true;
  t.after(() => {
    outline.failureRate = 0;
    outline.unhealthy = false;
  });
  // A completed job is removed at once: its attempts are read as the worker completes it.
  const attemptsMade = new Map<string, number>();
  const record = (job: Job) => job.id && attemptsMade.set(job.id, job.attemptsMade);
  for (const worker of stack.workers?.workers ?? []) worker.on('completed', record);
  t.after(() => {
    for (const worker of stack.workers?.workers ?? []) worker.off('completed', record);
  });
  const runId = await startStory('a harbour whose tides run late');
  // Waiting: the outline stage says so once, as a retried error with the breaker's code.
  await until(
    async () => {
      const { body } = await stack.json<{ stages: { name: string; status: string; error: { code: string } | null }[] }>(`/v1/runs/${runId}`);
      return body.stages.some((s) => s.name === 'outline' && s.status === 'retrying' && s.error?.code === 'circuit_open');
    },
    10_000,
    'the outline stage to wait on the breaker',
  );
  // Several half-open periods pass while the service stays down: more wake-ups than the 2 attempts.
  await new Promise((r) => setTimeout(r, 3000));
  outline.failureRate = 0;
  outline.unhealthy = false;
  const run = await stack.waitForRun(runId, 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));

  const made = attemptsMade.get(jobId(runId, 'outline'));
  const stage = (run.stages as { name: string; attempts: number }[]).find((s) => s.name === 'outline');
  process.stdout.write(`# breaker wait: outline started ${stage?.attempts} times; BullMQ attempts made ${made} (the successful one included)\n`);
  // Two attempts are the budget: had every wake-up spent one, the run would have failed.
  assert.ok((stage?.attempts ?? 0) > 2, `the stage was started more often than its attempt budget: ${stage?.attempts}`);
  assert.ok((made ?? 99) <= 2, `only real failures and the success count as attempts: ${made}`);
});

test('a service that stays down fails the run with its own last error once the wait budget is spent', async (t) => {
  const search = stack.tools.services.search.faults;
  search.failureRate = 1;
  t.after(() => (search.failureRate = 0));
  const started = Date.now();
  const runId = await startStory('a lamp that will not light');
  const run = await stack.waitForRun(runId, BREAKER_WAIT_BUDGET_MS + 20_000);
  const error = run.error as { code: string; stage: string };
  process.stdout.write(`# down service: run ${String(run.status)} after ${Date.now() - started} ms with ${error.code}\n`);
  assert.equal(run.status, 'failed');
  assert.equal(error.stage, 'search');
  assert.equal(error.code, 'service_unavailable', 'the service\'s own error, not circuit_open');
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.equal(events.at(-1)?.event, 'done');
});
