import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { HttpError } from '@switchyard/http-kit';
import { jobId, kindQueue, toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { countingAuthor, untilAborted } from '../../services/orchestrator/src/testing/authors.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const author = countingAuthor();
let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'stage-failures', author });
});
after(() => stack.close());

async function startStory(topic: string): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) });
  assert.equal(status, 202);
  return body.run_id;
}

async function eventsOf(runId: string) {
  return readSse(await stack.request(`/v1/runs/${runId}/events`));
}

test('a non-retryable failure in one section fails the run with that error, aborts its siblings and leaves no job waiting', async (t) => {
  let siblingsAborted = 0;
  author.hooks.writeSection = async (input, options) => {
    if (input.section_name === 'climax') {
      throw new HttpError({ status: 422, code: 'content_rejected', message: 'The climax was rejected by policy' });
    }
    await untilAborted(options.signal);
    siblingsAborted += 1;
  };
  t.after(() => delete author.hooks.writeSection);
  const polishCalls = author.calls.polish;

  const runId = await startStory('a lighthouse that keeps the wrong hours');
  const run = await stack.waitForRun(runId);
  assert.equal(run.status, 'failed');
  const error = run.error as { code: string; stage: string; retryable: boolean };
  assert.equal(error.code, 'content_rejected');
  assert.equal(error.stage, 'write.climax');
  assert.equal(error.retryable, false);
  const stages = Object.fromEntries((run.stages as { name: string; status: string; attempts: number }[]).map((s) => [s.name, s]));
  assert.equal(stages['write.climax']?.status, 'failed');
  assert.equal(stages['write.climax']?.attempts, 1, 'a non-retryable error is not retried');
  assert.equal(stages.polish?.status, 'cancelled');
  assert.equal(author.calls.polish, polishCalls, 'polish never ran');

  const connection = createRedisClient(stack.redisUrl);
  const queue = new Queue(toolQueue('editing'), { connection, prefix: stack.prefix });
  const writers = new Queue(toolQueue('writing'), { connection, prefix: stack.prefix });
  t.after(async () => {
    await Promise.all([queue.close(), writers.close()]);
    await connection.quit();
  });
  // The polish waited on the writers as their flow parent: the failed section fails it, unrun.
  await waitFor(async () => (await queue.getJobState(jobId(runId, 'polish'))) === 'failed', 'the polish, waiting on the failed section, failed with it');
  assert.match((await queue.getJob(jobId(runId, 'polish')))?.failedReason ?? '', /^child \S+ failed$/);
  await waitFor(() => siblingsAborted === 3, 'the three sibling writers were aborted');
  await waitFor(async () => (await writers.getActiveCount()) === 0 && (await writers.getWaitingCount()) === 0, 'no writer job is left active or waiting');

  const events = await eventsOf(runId);
  const done = events.filter((e) => e.event === 'done');
  assert.equal(done.length, 1);
  assert.equal(JSON.parse(done[0]?.data ?? '{}').status, 'failed');
});

test('transient 503s are retried, by the client and then by the queue, and the run completes', async (t) => {
  // The client retries once; two failures spend that, so the stage job itself is retried.
  stack.tools.services.search.faults.failNext = 2;
  t.after(() => (stack.tools.services.search.faults.failNext = 0));
  const runId = await startStory('a tailor who sews maps into coats');
  const run = await stack.waitForRun(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const search = (run.stages as { name: string; attempts: number }[]).find((s) => s.name === 'search');
  assert.equal(search?.attempts, 2);
  const errors = (await eventsOf(runId)).filter((e) => e.event === 'error').map((e) => JSON.parse(e.data) as { code: string; will_retry: boolean; stage: string });
  assert.deepEqual(errors.map((e) => [e.stage, e.code, e.will_retry]), [['search', 'service_unavailable', true]]);
});

test('a stream cut mid-section starts that section over with a reset event, and the story holds no duplicated text', async (t) => {
  Object.assign(stack.tools.services.writing.faults, { streamCutAfterChunks: 3, streamCutsLeft: 1 });
  t.after(() => Object.assign(stack.tools.services.writing.faults, { streamCutAfterChunks: null, streamCutsLeft: null }));
  const runId = await startStory('a clockmaker racing the tide');
  const run = await stack.waitForRun(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));

  const events = await eventsOf(runId);
  const resets = events.filter((e) => e.event === 'reset').map((e) => JSON.parse(e.data) as { section: string });
  assert.equal(resets.length, 1);
  const section = resets[0]?.section;
  const resetAt = events.findIndex((e) => e.event === 'reset');
  const streamedAfterReset = events
    .slice(resetAt)
    .filter((e) => e.event === 'content' && JSON.parse(e.data).section === section)
    .map((e) => JSON.parse(e.data).chunk as string)
    .join('');
  const result = run.result as { sections: { name: string; content: string }[]; content: string };
  const written = result.sections.find((s) => s.name === section)?.content ?? '';
  assert.equal(streamedAfterReset, written, 'what streams after the reset is the section as written');
  const firstSentence = written.split(/(?<=[.!?])\s/)[0] ?? '';
  assert.ok(firstSentence.length > 10);
  assert.equal(written.split(firstSentence).length - 1, 1, 'the section holds its opening once');
});

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('a stage job that BullMQ fails before any stage code runs fails its run at once, from BullMQ\'s failed event', async (t) => {
  const { RunStore } = await import('@switchyard/pipeline');
  const connection = createRedisClient(stack.redisUrl);
  const store = new RunStore({ redis: connection, prefix: stack.prefix });
  const queue = new Queue(kindQueue('aceflow.stage'), { connection, prefix: stack.prefix });
  t.after(async () => {
    await queue.close();
    await connection.quit();
  });
  const runId = await store.createRun({ kind: 'aceflow', request: {}, stages: ['s1_user_story'] });
  // A payload the step processor refuses outright (unrecoverable), before its stage starts.
  await queue.add('pipeline.step', { run_id: runId, stage: 'not-a-stage' }, { jobId: jobId(runId, 's1_user_story'), attempts: 3 });
  const run = await stack.waitForRun(runId, 10_000);
  assert.equal(run.status, 'failed');
  assert.equal((run.error as { code: string }).code, 'job_failed', 'ended by the failed event, not a later sweep');
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.equal(events.at(-1)?.event, 'done');
});
