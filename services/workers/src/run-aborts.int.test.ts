/**
 * What a worker process knows of cancelled runs, which decides whether a stage may start from its
 * job alone (runStage's carried start): the runs it heard cancelled, and since when it has heard
 * every cancel.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { RunAborts } from './run-aborts.js';

let url: string;
let redis: Redis;
before(async () => {
  url = (await testRedis()).url;
  redis = createRedisClient(url);
});
after(() => redis.quit());

async function cancelledRun(store: RunStore): Promise<string> {
  const runId = await store.createRun({ kind: 'test', request: {}, stages: ['a'] });
  assert.equal((await store.transition({ runId, from: ['queued'], to: 'cancelled' })).moved, true);
  return runId;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition(); ) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a process started after runs were cancelled knows them from the list of ended runs, and has heard every cancel since as long before as the list keeps them', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('aborts-list') });
  const runId = await cancelledRun(store);
  const listed = new RunAborts({ store, subscriber: createRedisClient(url), endedListedMs: 10_000 });
  const unlisted = new RunAborts({ store, subscriber: createRedisClient(url) });
  try {
    await Promise.all([listed.start(), unlisted.start()]);
    assert.equal(listed.hasEnded(runId), true);
    assert.equal(listed.heardAllSince(Date.now() - 5_000), true);
    assert.equal(listed.heardAllSince(Date.now() - 20_000), false, 'before the list\'s window');
    assert.equal(unlisted.hasEnded(runId), false);
    assert.equal(unlisted.heardAllSince(Date.now() - 5_000), false, 'before it subscribed');
  } finally {
    await Promise.all([listed.close(), unlisted.close()]);
  }
});

test('a process whose connection to the cancel channel broke has heard every cancel only since it subscribed again', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('aborts-broken') });
  const subscriber = createRedisClient(url);
  const aborts = new RunAborts({ store, subscriber });
  try {
    await aborts.start();
    const before = Date.now();
    await until(() => aborts.heardAllSince(before), 'heard since subscribing');
    subscriber.disconnect(true);
    await until(() => !aborts.heardAllSince(before), 'not heard while cut off');
    await until(() => aborts.heardAllSince(Date.now()), 'subscribed again');
    assert.equal(aborts.heardAllSince(before), false, 'a cancel published while cut off was lost');
    const runId = await cancelledRun(store);
    await store.publishCancel(runId);
    await until(() => aborts.hasEnded(runId), 'a cancel published after is heard');
  } finally {
    await aborts.close();
  }
});
