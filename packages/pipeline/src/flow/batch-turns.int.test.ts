/**
 * Turns between batches of one key, on a real Redis (or cluster): the answers a batch's dispatcher
 * gets as its key's backlog and its other batches stand.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { BatchTurns } from './batch-turns.js';
import { FairShares } from './fair-shares.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

const flow = { priority: 6, key: 'key:a' };

test("a key's second batch starts level with the first and they add their chunks in turn; a batch of another key is not held", async () => {
  const turns = new BatchTurns({ redis, prefix: uniquePrefix('batch-turns') });
  const ask = (batch: string, key = flow) => turns.ask({ queues: ['tool-search'], flow: key, batch, ahead: 1000, chunk: 250 });
  for (let i = 0; i < 4; i += 1) assert.equal(await ask('first'), 'go', 'a batch alone adds chunk after chunk');
  assert.equal(await ask('second'), 'go', 'a batch that joins starts level with the first, not 1,000 runs behind it');
  const answers: string[] = [];
  for (let i = 0; i < 3; i += 1) answers.push(await ask('second'), await ask('first'), await ask('first'));
  assert.deepEqual(answers, ['turn', 'go', 'go', 'go', 'go', 'turn', 'go', 'go', 'turn'], 'then each adds only when it has added no more than the other (the first to ask on a tie)');
  assert.equal(await ask('third', { priority: 6, key: 'key:b' }), 'go', "another key's batch takes no turn with them");
  await turns.done(flow, 'second');
  assert.equal(await ask('first'), 'go', 'a batch that ended holds no one');
  assert.equal(await ask('first'), 'go');
});

test('a batch waits while its key has `ahead` rounds waiting in any queue of its pipeline', async () => {
  const prefix = uniquePrefix('batch-turns-full');
  const fair = new FairShares({ redis, prefix });
  const turns = new BatchTurns({ redis, prefix });
  // Three of the key's jobs waiting in the outline queue: three rounds ahead of the class's time.
  const queue = new Queue('tool-outline', { connection: redis, prefix });
  const priorities = await fair.priorities(Array.from({ length: 3 }, () => ({ queue: 'tool-outline', flow })));
  await queue.addBulk(priorities.map((priority, i) => ({ name: 'step', data: {}, opts: { priority, jobId: `j-${i}` } })));
  await queue.close();
  const ask = (ahead: number) => turns.ask({ queues: ['tool-search', 'tool-outline'], flow, batch: 'only', ahead, chunk: 10 });
  assert.equal(await ask(3), 'full');
  assert.equal(await ask(4), 'go');
});
