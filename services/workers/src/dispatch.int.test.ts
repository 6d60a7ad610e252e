/**
 * A batch's dispatcher adds its runs' first jobs carrying their requests only when no earlier
 * holder of its job may have added them (a first stage carrying its inputs makes no start, so a
 * job added again after the first had completed and gone would run its stage again).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { addFirstJobsAgain, BatchStore, newPipelineRun, PipelineStore, registerShippedPipelines, rootJobs, RunStore, StepQueues, type CompiledPipeline, type StepJob } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { dispatchProcessor } from './dispatch.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.quit());

/** A batch of two stories, its dispatcher, and the search queue its runs' first jobs go to (no worker takes them). */
async function storyBatch() {
  const prefix = uniquePrefix('dispatch');
  const store = new RunStore({ redis, prefix });
  const pipelines = new PipelineStore({ redis, prefix });
  await registerShippedPipelines(pipelines);
  const story = (await pipelines.compiled('story')) as CompiledPipeline;
  const inputs = [{ topic: 'tides' }, { topic: 'moons' }];
  const batches = new BatchStore(store);
  const { batchId, runIds } = await batches.createBatch({ runs: await Promise.all(inputs.map((input) => newPipelineRun(story, input))) });
  const steps = new StepQueues({ connection: redis, prefix });
  const search = new Queue(story.steps.get('search')?.queue as string, { connection: redis, prefix });
  const dispatch = dispatchProcessor({ store, batches, pipelines, steps });
  const jobOf = (taken: { stalled: number; made: number }) => ({ data: { batch_id: batchId, pipeline: { name: 'story', version: story.version } }, attemptsMade: taken.made, stalledCounter: taken.stalled, updateProgress: async () => undefined }) as unknown as Job;
  const carried = async () => {
    const jobs = await search.getJobs(['waiting', 'prioritized']);
    return new Map(jobs.map((job) => [(job.data as StepJob).run_id, (job.data as StepJob).carried]));
  };
  const close = async () => {
    await Promise.all([steps.close(), search.close()]);
  };
  const again = async () => addFirstJobsAgain({ steps, store }, await Promise.all(runIds.map(async (runId) => ({ runId, jobs: await rootJobs(story, runId, batchId) }))));
  return { inputs, runIds, batches, batchId, dispatch, jobOf, carried, again, search, store, close };
}

test("a dispatch job's first hand-out adds its runs' first jobs carrying each run's request", async () => {
  const batch = await storyBatch();
  try {
    assert.deepEqual(await batch.dispatch(batch.jobOf({ stalled: 0, made: 0 })), { dispatched: 2 });
    const carried = await batch.carried();
    assert.deepEqual(batch.runIds.map((id) => carried.get(id)), batch.inputs.map((input) => ({ request: input, inputs: {} })));
  } finally {
    await batch.close();
  }
});

test('a dispatch job taken over after a stall or a failure adds jobs that carry nothing, as its first holder may have added them already', async () => {
  for (const taken of [{ stalled: 1, made: 0 }, { stalled: 0, made: 1 }]) {
    const batch = await storyBatch();
    try {
      assert.deepEqual(await batch.dispatch(batch.jobOf(taken)), { dispatched: 2 });
      const carried = await batch.carried();
      assert.deepEqual(batch.runIds.map((id) => carried.has(id)), [true, true], 'both runs have their first job');
      assert.deepEqual(batch.runIds.map((id) => carried.get(id)), [undefined, undefined], JSON.stringify(taken));
    } finally {
      await batch.close();
    }
  }
});

test("a queued run's first jobs are added again only when none is there and the run is still queued", async () => {
  const batch = await storyBatch();
  try {
    await batch.dispatch(batch.jobOf({ stalled: 0, made: 0 }));
    assert.deepEqual(await batch.again(), [], 'first jobs waiting: nothing added');
    const [working, gone] = batch.runIds as [string, string];
    // One run's first job completed and went: its completion had moved the run to running.
    await batch.store.transition({ runId: gone, from: ['queued'], to: 'running' });
    await (await batch.search.getJob(`${gone}.search`))?.remove({ removeChildren: false });
    // The other's job was never added (its adder died first).
    await (await batch.search.getJob(`${working}.search`))?.remove({ removeChildren: false });
    assert.deepEqual(await batch.again(), [working]);
    const carried = await batch.carried();
    assert.deepEqual([carried.has(working), carried.get(working)], [true, undefined]);
    assert.equal(carried.has(gone), false);
  } finally {
    await batch.close();
  }
});
