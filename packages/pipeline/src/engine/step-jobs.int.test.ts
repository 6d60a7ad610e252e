import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { StepQueues, type StepJobSpec } from './step-jobs.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

const spec = (queue: string, runId: string, step: string): StepJobSpec => ({
  queue,
  data: { run_id: runId, pipeline: 'p', version: 1, step },
  opts: { jobId: `${runId}.${step}`, removeOnComplete: true },
});

/** Counts the Redis round trips a queue is asked for: one per add or addBulk call, with its jobs. */
function countAdds(queue: Queue): number[] {
  const calls: number[] = [];
  const add = queue.add.bind(queue);
  const addBulk = queue.addBulk.bind(queue);
  queue.add = (...args: Parameters<Queue['add']>) => {
    calls.push(1);
    return add(...args);
  };
  queue.addBulk = (jobs: Parameters<Queue['addBulk']>[0]) => {
    calls.push(jobs.length);
    return addBulk(jobs);
  };
  return calls;
}

test('jobs added by several steps in one turn go to Redis as one add per queue, and each add settles once its jobs are stored', async (t) => {
  const steps = new StepQueues({ connection: redis, prefix: uniquePrefix('step-jobs') });
  t.after(() => steps.close());
  const writing = countAdds(steps.queue('tool-writing'));
  const editing = countAdds(steps.queue('tool-editing'));

  const settled: string[] = [];
  const adds = [
    steps.add([spec('tool-writing', 'run_a', 'w1'), spec('tool-writing', 'run_a', 'w2')]).then(() => settled.push('a')),
    steps.add([spec('tool-writing', 'run_b', 'w1'), spec('tool-editing', 'run_b', 'polish')]).then(() => settled.push('b')),
    steps.add([spec('tool-editing', 'run_c', 'polish')]).then(() => settled.push('c')),
  ];
  await Promise.all(adds);

  assert.deepEqual(writing, [3]);
  assert.deepEqual(editing, [2]);
  assert.deepEqual(settled.sort(), ['a', 'b', 'c']);
  for (const [queue, id] of [['tool-writing', 'run_a.w1'], ['tool-writing', 'run_a.w2'], ['tool-writing', 'run_b.w1'], ['tool-editing', 'run_b.polish'], ['tool-editing', 'run_c.polish']] as const) {
    assert.equal((await steps.queue(queue).getJob(id))?.data.run_id, id.split('.')[0], `${id} on ${queue}`);
  }

  // A later turn is a round trip of its own.
  await steps.add([spec('tool-writing', 'run_d', 'w1')]);
  assert.deepEqual(writing, [3, 1]);
});

test('an add naming a queue that cannot be opened fails, while the adds of the same turn to other queues land', async (t) => {
  const steps = new StepQueues({ connection: redis, prefix: uniquePrefix('step-jobs') });
  t.after(() => steps.close());
  const [bad, good] = await Promise.allSettled([steps.add([spec('tool:bad', 'run_a', 's')]), steps.add([spec('tool-good', 'run_b', 's')])]);
  assert.equal(bad?.status, 'rejected');
  assert.match(String((bad as PromiseRejectedResult).reason), /Queue name cannot contain :/);
  assert.equal(good?.status, 'fulfilled');
  assert.ok(await steps.queue('tool-good').getJob('run_b.s'));
});

test('adds made in the turn the queues close in are still sent', async (t) => {
  const prefix = uniquePrefix('step-jobs');
  const steps = new StepQueues({ connection: redis, prefix });
  steps.queue('tool-writing');
  const added = steps.add([spec('tool-writing', 'run_a', 'w1')]);
  await steps.close();
  await added;
  const reader = new StepQueues({ connection: redis, prefix });
  t.after(() => reader.close());
  assert.ok(await reader.queue('tool-writing').getJob('run_a.w1'));
});

test('an add of no jobs settles without a round trip', async (t) => {
  const steps = new StepQueues({ connection: redis, prefix: uniquePrefix('step-jobs') });
  t.after(() => steps.close());
  const calls = countAdds(steps.queue('tool-writing'));
  await steps.add([]);
  assert.deepEqual(calls, []);
});
