/**
 * A stage whose job carries what it reads (StepJob.carried) starts without a round trip on its
 * first attempt, and its run's record still tells the same: started when it began, running while
 * it lasts, one attempt, refused once its run has ended.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UnrecoverableError, type Job } from 'bullmq';
import { BatchStore, readEvents } from '@switchyard/pipeline';
import { CANCEL_HEARD_MARGIN_MS } from './run-aborts.js';
import { runStage } from './stage-runner.js';
import { stageFixture } from './testing/stage-fixture.js';

const fixture = stageFixture('carried-start');
const deps = () => fixture.deps();
/**
 * A job as BullMQ hands it out: `started` times so far, this one included; `made` attempts failed;
 * `addedAt` by default as long after this process began listening for cancels as heardAllSince asks.
 */
const jobOf = (started: number, made = 0, addedAt = Date.now() + CANCEL_HEARD_MARGIN_MS) => ({ attemptsStarted: started, attemptsMade: made, timestamp: addedAt, opts: { attempts: 3 } }) as unknown as Job;

/** A running run whose `outline` is done, as when its writers are added. */
async function runWithOutline(): Promise<string> {
  const runId = await fixture.store.createRun({ kind: 'test', request: { topic: 'stored' }, stages: ['outline', 'write'] });
  await fixture.store.startStage({ runId, stage: 'outline' });
  await fixture.store.completeStage({ runId, stage: 'outline', output: { sections: ['stored'] } }).recorded;
  return runId;
}

const carried = { request: { topic: 'carried' }, inputs: { outline: { sections: ['carried'] } } };
const spec = (runId: string) => ({ runId, name: 'write', inputs: ['outline'], withRequest: true, carried });

async function stageView(runId: string, name: string) {
  return (await fixture.store.getRun(runId))?.stages.find((stage) => stage.name === name);
}

test('a first attempt that carries its inputs works on them before anything of its stage is written, and its completion records its start', async () => {
  const runId = await runWithOutline();
  const before = new Date().toISOString();
  let seen: unknown;
  const done = await runStage(deps(), jobOf(1), {
    ...spec(runId),
    work: async ({ inputs, request, attempt }) => {
      seen = { inputs, request, attempt, written: await fixture.redis.hget(fixture.store.keys.run(runId), 'write.status') };
      return 'text';
    },
  });
  await done.recorded;
  assert.deepEqual(seen, { inputs: carried.inputs, request: carried.request, attempt: 1, written: null });
  const view = await stageView(runId, 'write');
  assert.equal(view?.status, 'completed');
  assert.equal(view?.attempts, 1);
  assert.ok(view?.started_at && view.finished_at && before <= view.started_at && view.started_at <= view.finished_at, JSON.stringify(view));
  const events = await readEvents({ redis: fixture.redis, key: fixture.store.keys.events(runId), after: '0', count: 100 });
  const told = events.map((e) => JSON.parse(e.data) as { stage: string; status: string }).filter((e) => e.stage === 'write');
  assert.deepEqual(told.map((e) => e.status), ['completed']);
});

test('a carried stage that lasts is shown running in its run\'s view while it works, from when it began', async () => {
  const runId = await runWithOutline();
  const began = new Date().toISOString();
  let whileRunning: Awaited<ReturnType<typeof stageView>>;
  const done = await runStage(deps(), jobOf(1), {
    ...spec(runId),
    work: async ({ announce }) => {
      announce();
      // The record and the event go in one turn; the event is read once both are in.
      for (let after = '0'; ; ) {
        const read = await readEvents({ redis: fixture.redis, key: fixture.store.keys.events(runId), after, blockMs: 5000, count: 10 });
        if (read.length === 0) throw new Error('no running event for 5 s');
        if (read.some((e) => e.data.includes('"running"'))) break;
        after = read.at(-1)?.id ?? after;
      }
      whileRunning = await stageView(runId, 'write');
      return 'text';
    },
  });
  await done.recorded;
  assert.equal(whileRunning?.status, 'running');
  assert.equal(whileRunning?.attempts, 1);
  assert.ok(whileRunning?.started_at && began <= whileRunning.started_at, JSON.stringify(whileRunning));
  const after = await stageView(runId, 'write');
  assert.deepEqual([after?.status, after?.attempts, after?.started_at], ['completed', 1, whileRunning?.started_at]);
});

test('a carried stage of a run this process heard was cancelled reads its start, which refuses it before any work', async () => {
  const runId = await runWithOutline();
  await fixture.store.transition({ runId, from: ['running'], to: 'cancelled' });
  fixture.aborts.abort(runId, 'cancelled');
  let worked = false;
  await assert.rejects(
    runStage(deps(), jobOf(1), { ...spec(runId), work: async () => ((worked = true), 'text') }),
    (error: unknown) => error instanceof UnrecoverableError && /cancelled/.test(error.message),
  );
  assert.equal(worked, false);
});

test('a carried stage of a run cancelled without this process hearing it is aborted once its start is recorded', async () => {
  const runId = await runWithOutline();
  await fixture.store.transition({ runId, from: ['running'], to: 'cancelled' });
  let aborted = false;
  await assert.rejects(
    runStage(deps(), jobOf(1), {
      ...spec(runId),
      work: async ({ announce, signal }) => {
        announce();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted = true;
        throw signal.reason;
      },
    }),
    (error: unknown) => error instanceof UnrecoverableError,
  );
  assert.equal(aborted, true);
  assert.equal((await stageView(runId, 'write'))?.status, 'cancelled');
});

test('a job BullMQ has handed out before reads its start even though it carries inputs', async () => {
  for (const job of [jobOf(2), jobOf(2, 1)]) {
    const runId = await runWithOutline();
    let seen: unknown;
    await runStage(deps(), job, { ...spec(runId), work: async ({ inputs, request }) => ((seen = { inputs, request }), 'text') }).then((done) => done.recorded);
    assert.deepEqual(seen, { inputs: { outline: { sections: ['stored'] } }, request: { topic: 'stored' } });
  }
});

test('a carried stage whose job was added before this process could hear every cancel reads its start', async () => {
  const runId = await runWithOutline();
  let seen: unknown;
  await runStage(deps(), jobOf(1, 0, Date.now() - 60_000), { ...spec(runId), work: async ({ inputs }) => ((seen = inputs), 'text') }).then((done) => done.recorded);
  assert.deepEqual(seen, { outline: { sections: ['stored'] } });
});

test('a carried stage that fails has its attempt recorded before its failure, and the retry is the second', async () => {
  const runId = await runWithOutline();
  await assert.rejects(runStage(deps(), jobOf(1), { ...spec(runId), work: async () => Promise.reject(new Error('flaky')) }), /flaky/);
  const failed = await stageView(runId, 'write');
  assert.deepEqual([failed?.status, failed?.attempts], ['retrying', 1]);
  await runStage(deps(), jobOf(2, 1), { ...spec(runId), work: async () => 'text' }).then((done) => done.recorded);
  const retried = await stageView(runId, 'write');
  assert.deepEqual([retried?.status, retried?.attempts, retried?.started_at], ['completed', 2, failed?.started_at]);
});

/** A batch of one run not started yet, as its dispatcher leaves it: queued, its first stage `search` to run. */
async function queuedBatchRun(): Promise<{ batchId: string; runId: string; batches: BatchStore }> {
  const batches = new BatchStore(fixture.store);
  const { batchId, runIds } = await batches.createBatch({ runs: [{ kind: 'test', request: { topic: 'stored' }, stages: ['search', 'outline'] }] });
  return { batchId, runId: runIds[0] as string, batches };
}

const batchCounts = async (batches: BatchStore, batchId: string) => (await batches.getBatch(batchId, { offset: 0, limit: 1 }))?.counts;

test("a run's first stage, carrying its request from the run's start, works while the run is still queued, and its completion moves the run and its batch's counts to running", async () => {
  const { batchId, runId, batches } = await queuedBatchRun();
  let seen: unknown;
  const done = await runStage(deps(), jobOf(1), {
    runId,
    batchId,
    name: 'search',
    inputs: [],
    withRequest: true,
    carried: { request: { topic: 'carried' }, inputs: {} },
    work: async ({ request }) => {
      seen = { request, status: (await fixture.store.getRun(runId))?.status, counts: await batchCounts(batches, batchId) };
      return 'found';
    },
  });
  const recorded = await done.recorded;
  assert.deepEqual(seen, { request: { topic: 'carried' }, status: 'queued', counts: { queued: 1, running: 0, waiting: 0, completed: 0, failed: 0, cancelled: 0 } });
  assert.equal(recorded?.moved, true);
  const run = await fixture.store.getRun(runId);
  assert.equal(run?.status, 'running');
  assert.deepEqual(run?.stages.map((stage) => [stage.name, stage.status, stage.attempts]), [['search', 'completed', 1], ['outline', 'pending', 0]]);
  assert.equal((await batchCounts(batches, batchId))?.running, 1);
});

test("a run's first stage that fails before its start was recorded moves its run to running with the attempt it records first", async () => {
  const { batchId, runId, batches } = await queuedBatchRun();
  const spec = { runId, batchId, name: 'search', inputs: [], withRequest: true, carried: { request: null, inputs: {} } };
  await assert.rejects(runStage(deps(), jobOf(1), { ...spec, work: async () => Promise.reject(new Error('flaky')) }), /flaky/);
  const run = await fixture.store.getRun(runId);
  assert.deepEqual([run?.status, run?.stages[0]?.status, run?.stages[0]?.attempts], ['running', 'retrying', 1]);
  assert.equal((await batchCounts(batches, batchId))?.running, 1);
});
