import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { waitFor } from '../testing/journey.js';
import { sessionKeys } from '../http/keys.js';
import { RedisTaskStore, taskLeases } from './redis-task-store.js';

let url: string;
let redis: Redis;
before(async () => {
  url = (await testRedis()).url;
  redis = createRedisClient(url);
});
after(() => redis.disconnect());

/** Renewed every third of it: long enough that a busy machine renews in time, short enough to wait out. */
const LEASE_MS = 1000;
const request = { method: 'tools/call', params: {} };

/** A bridge process as far as tasks go: its own connection, its leases, a store for the session. */
function bridgeProcess(prefix: string, sessionId: string, leaseMs = LEASE_MS) {
  const connection = createRedisClient(url);
  const leases = taskLeases({ redis: connection, leaseMs });
  const store = new RedisTaskStore({ redis: connection, prefix, sessionId, leases });
  return { connection, leases, store };
}

const leaseEnd = async (prefix: string, sessionId: string, taskId: string) => Number(await redis.hget(sessionKeys(prefix, sessionId).task(taskId), 'lease_until'));

type Bridge = ReturnType<typeof bridgeProcess>;

/** Two bridge processes serving one session under a prefix of their own, let go of afterwards. */
async function withTwoBridges(label: string, check: (bridges: { prefix: string; session: string; first: Bridge; second: Bridge }) => Promise<void>, leaseMs = LEASE_MS): Promise<void> {
  const prefix = uniquePrefix(label);
  const session = `${label}-session`;
  const first = bridgeProcess(prefix, session, leaseMs);
  const second = bridgeProcess(prefix, session, leaseMs);
  try {
    await check({ prefix, session, first, second });
  } finally {
    for (const bridge of [first, second]) {
      // A bridge whose connection the test took away has nothing to close: on a Redis Cluster a
      // command on a disconnected client waits instead of failing at once.
      if (bridge.connection.status === 'ready') await bridge.leases.close();
      bridge.connection.disconnect();
    }
  }
}

test('a task whose bridge died fails once its lease runs out, with a result telling the client to call again', async () => {
  await withTwoBridges('task-lease-died', async ({ first: doomed, second: replica }) => {
    const task = await doomed.store.createTask({}, 1, request);
    assert.equal((await replica.store.getTask(task.taskId))?.status, 'working', 'working while its lease holds');
    // The process is gone: no renewals, no result, ever.
    doomed.connection.disconnect();
    const failed = await waitFor('the task to fail', async () => {
      const seen = await replica.store.getTask(task.taskId);
      return seen?.status === 'failed' ? seen : undefined;
    });
    assert.match(failed.statusMessage ?? '', /stopped before it finished; call the tool again/);
    const result = await replica.store.getTaskResult(task.taskId);
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /bridge_stopped/);
    assert.equal((await replica.store.listTasks()).tasks[0]?.status, 'failed');
    // A lease long enough that a busy machine cannot let it run out before the first look.
  }, 3000);
});

test('a task whose bridge keeps renewing its lease stays working past its first lease', async () => {
  await withTwoBridges('task-lease-renewed', async ({ prefix, session, first: running, second: reader }) => {
    const task = await running.store.createTask({}, 1, request);
    const firstEnd = await leaseEnd(prefix, session, task.taskId);
    await waitFor('the first lease to have run out', () => Date.now() > firstEnd + 50);
    assert.ok((await leaseEnd(prefix, session, task.taskId)) > firstEnd, 'the lease was renewed');
    assert.equal((await reader.store.getTask(task.taskId))?.status, 'working');
    await running.store.storeTaskResult(task.taskId, 'completed', { content: [] });
    const finishedEnd = await leaseEnd(prefix, session, task.taskId);
    await waitFor('the last lease to have run out', () => Date.now() > finishedEnd + 50);
    assert.equal((await reader.store.getTask(task.taskId))?.status, 'completed', 'a finished task is left as it ended');
  });
});

test('a bridge that stops fails the tasks still running in it at once, and leaves the others alone', async () => {
  await withTwoBridges('task-lease-stop', async ({ prefix, session, first: stopping, second: reader }) => {
    const unfinished = await stopping.store.createTask({}, 1, request);
    const finished = await stopping.store.createTask({}, 2, request);
    await stopping.store.storeTaskResult(finished.taskId, 'completed', { content: [{ type: 'text', text: 'done' }] });
    await stopping.leases.close();
    assert.equal((await reader.store.getTask(unfinished.taskId))?.status, 'failed');
    assert.ok(Date.now() < (await leaseEnd(prefix, session, unfinished.taskId)), 'failed before its lease ran out');
    assert.equal((await reader.store.getTask(finished.taskId))?.status, 'completed');
    assert.deepEqual((await reader.store.getTaskResult(finished.taskId)).content, [{ type: 'text', text: 'done' }]);
    // A lease long enough that only the stop, not its running out, can have failed the task, on a busy machine too.
  }, 10_000);
});
