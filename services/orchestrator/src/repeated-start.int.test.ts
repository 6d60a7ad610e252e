/**
 * A start that died after recording its runs (a process killed between the record and the first
 * jobs) is finished by its request sent again under the same Idempotency-Key. The repeat is given
 * the pipeline's latest version; a version registered in between must not run on runs recorded on
 * the one before: their steps, their stages and their output are the first request's version's.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { BatchStore, createPipelineQueues, newPipelineRun, PipelineStore, RunStore, startPipelineBatch, startPipelineRun, type CompiledPipeline } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { registerPipeline } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'repeated-start' });
});
after(() => stack.close());

/** The engine as a start reaches it, on a connection of the test's own (closed after it). */
function startDeps(t: TestContext) {
  const redis = createRedisClient(stack.redisUrl);
  const store = new RunStore({ redis, prefix: stack.prefix });
  const queues = createPipelineQueues({ connection: redis, prefix: stack.prefix });
  t.after(async () => {
    await queues.close();
    await redis.quit();
  });
  return { store, queues, batches: new BatchStore(store), pipelines: new PipelineStore({ redis, prefix: stack.prefix }) };
}

/** Version 1 finds with step `first`; version 2, registered after, with step `second`. */
async function twoVersions(deps: ReturnType<typeof startDeps>, name: string): Promise<{ v1: CompiledPipeline; v2: CompiledPipeline }> {
  const tool = { tool: 'search_relevant_information', args: { topic: 'input.topic' } };
  await registerPipeline(stack, { name, steps: { first: tool }, output: 'steps.first' });
  const v1 = (await deps.pipelines.compiled(name)) as CompiledPipeline;
  await registerPipeline(stack, { name, steps: { second: tool }, output: 'steps.second' });
  const v2 = (await deps.pipelines.compiled(name)) as CompiledPipeline;
  assert.deepEqual([v1.version, v2.version], [1, 2]);
  return { v1, v2 };
}

const stageNames = (run: Record<string, unknown>) => (run.stages as { name: string }[]).map((stage) => stage.name);

test('a repeated start of a run recorded on version 1 runs version 1, though version 2 is now the latest', async (t) => {
  const deps = startDeps(t);
  const input = { topic: 'pinned' };
  const recorded = await newPipelineRun((await twoVersions(deps, 'repeat-run')).v1, input);
  // As a start killed after recording its run leaves it: queued, with no job.
  const latest = (await deps.pipelines.compiled('repeat-run')) as CompiledPipeline;
  await deps.store.createRun(recorded);
  const started = await startPipelineRun(deps, { pipeline: latest, input, runId: recorded.id, repeated: true });
  assert.equal(started.pipeline.version, 1, 'the repeat tells the version its run was recorded on');
  const run = await stack.waitForRun(recorded.id, 60_000);
  assert.equal(run.status, 'completed');
  assert.deepEqual(stageNames(run), ['first']);
  assert.deepEqual(run.pipeline, { name: 'repeat-run', version: 1 });
});

test("a repeated start of a batch recorded on version 1 runs its runs, the unwritten ones too, on version 1", async (t) => {
  const deps = startDeps(t);
  const { v1, v2 } = await twoVersions(deps, 'repeat-batch');
  const inputs = [{ topic: 'one' }, { topic: 'two' }, { topic: 'three' }];
  const runs = await Promise.all(inputs.map((input) => newPipelineRun(v1, input)));
  // A batch whose list was written, and one of whose runs was not, before its start died.
  const { batchId, runIds } = await deps.batches.createBatch({ runs });
  await deps.store.redis.del(deps.store.keys.run(runIds[2] as string));
  const started = await startPipelineBatch(deps, { pipeline: v2, inputs, batchId, repeated: true });
  assert.deepEqual(started.runIds, runIds);
  for (const runId of runIds) {
    const run = await stack.waitForRun(runId, 60_000);
    assert.equal(run.status, 'completed', `${runId} completed`);
    assert.deepEqual(stageNames(run), ['first'], `${runId} ran version 1's step`);
    assert.deepEqual(run.pipeline, { name: 'repeat-batch', version: 1 });
  }
});
