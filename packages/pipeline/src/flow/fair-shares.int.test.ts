/**
 * Fair shares as BullMQ priorities, on a real Redis (or cluster) and real BullMQ queues: the
 * priorities given, and the order a queue then serves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { CLASS_SPAN, FairShares, MAX_IDLE_KEYS } from './fair-shares.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

const flow = (key: string, priority = 6, weight?: number) => ({ priority, key, ...(weight ? { weight } : {}) });

test("two keys' jobs alternate however many the first queued first, and a key's weight is its share", async () => {
  const prefix = uniquePrefix('fair-alternate');
  const fair = new FairShares({ redis, prefix });
  const queue = new Queue('tool-search', { connection: redis, prefix });
  try {
    const place = async (key: string, count: number, weight?: number) => {
      const priorities = await fair.priorities(Array.from({ length: count }, () => ({ queue: 'tool-search', flow: flow(key, 6, weight) })));
      await queue.addBulk(priorities.map((priority, i) => ({ name: 'step', data: { key }, opts: { priority, jobId: `${key}-${i}` } })));
      return priorities;
    };
    const first = await place('a', 6);
    assert.deepEqual(first, [0, 1, 2, 3, 4, 5].map((n) => 6 * CLASS_SPAN + n), "a class's base plus each job's start");
    await place('b', 3);
    await place('heavy', 4, 2);
    const order = (await queue.getPrioritized(0, 20)).map((job) => (job.data as { key: string }).key);
    assert.deepEqual(order, ['a', 'b', 'heavy', 'heavy', 'a', 'b', 'heavy', 'heavy', 'a', 'b', 'a', 'a', 'a'], 'in turn, the weight-2 key taking two places for one');
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

test('a class goes wholly before the next, and a key that comes late starts at the head of its class, not behind the backlog', async () => {
  const prefix = uniquePrefix('fair-classes');
  const fair = new FairShares({ redis, prefix });
  const queue = new Queue('tool-search', { connection: redis, prefix });
  try {
    const batch = await fair.priorities(Array.from({ length: 100 }, () => ({ queue: 'tool-search', flow: flow('nightly') })));
    await queue.addBulk(batch.map((priority, i) => ({ name: 'step', data: {}, opts: { priority, jobId: `n-${i}` } })));
    // Most of the batch is served: the head of the class is now its 90th job.
    for (let i = 0; i < 90; i += 1) await queue.remove(`n-${i}`);
    const [late] = await fair.priorities([{ queue: 'tool-search', flow: flow('late') }]);
    assert.equal(late, 6 * CLASS_SPAN + 90, 'the late key starts where the queue is, beside the head');
    const [single] = await fair.priorities([{ queue: 'tool-search', flow: flow('person', 3) }]);
    assert.ok((single ?? Infinity) < Math.min(...batch), 'a single run (class 3) is placed before every batch job');
    const [other] = await fair.priorities([{ queue: 'tool-other', flow: flow('nightly') }]);
    assert.equal(other, 6 * CLASS_SPAN, 'each queue keeps its own shares');
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

test('keys met once do not pile up: an idle class whose state holds more than MAX_IDLE_KEYS keys is dropped', async () => {
  const fair = new FairShares({ redis, prefix: uniquePrefix('fair-idle') });
  // A stream of distinct keys, each served before the next comes (nothing waits between calls).
  for (let i = 0; i < 3; i += 1) await fair.priorities(Array.from({ length: 600 }, (_, k) => ({ queue: 'tool-search', flow: flow(`tenant-${i}-${k}`) })));
  const fields = await redis.hlen(fair.stateKey('tool-search', 6));
  assert.ok(fields <= MAX_IDLE_KEYS + 2, `the state kept ${fields} fields`);
});
