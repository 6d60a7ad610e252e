import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { waitFor } from '../testing/journey.js';
import { RedisTaskStore, taskLeases } from './redis-task-store.js';

let url: string;
let redis: Redis;
before(async () => {
  url = (await testRedis()).url;
  redis = createRedisClient(url);
});
after(() => redis.disconnect());

const LEASE_MS = 300;
const request = { method: 'tools/call', params: {} };

/** A bridge process as far as tasks go: its own connection, its leases, a store for the session. */
function bridgeProcess(prefix: string, sessionId: string) {
  const connection = createRedisClient(url);
  const leases = taskLeases({ redis: connection, leaseMs: LEASE_MS });
  const store = new RedisTaskStore({ redis: connection, prefix, sessionId, leases });
  return { connection, leases, store };
}

const leaseEnd = async (prefix: string, taskId: string) => Number(await redis.hget(`${prefix}:mcp:task:${taskId}`, 'lease_until'));

test('a task whose bridge died fails once its lease runs out, with a result telling the client to call again', async () => {
  const prefix = uniquePrefix('task-lease-died');
  const doomed = bridgeProcess(prefix, 'session-1');
  const replica = bridgeProcess(prefix, 'session-1');
  try {
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
  } finally {
    await replica.leases.close();
    replica.connection.disconnect();
  }
});

test('a task whose bridge keeps renewing its lease stays working past its first lease', async () => {
  const prefix = uniquePrefix('task-lease-renewed');
  const running = bridgeProcess(prefix, 'session-2');
  const reader = bridgeProcess(prefix, 'session-2');
  try {
    const task = await running.store.createTask({}, 1, request);
    const firstEnd = await leaseEnd(prefix, task.taskId);
    await waitFor('the first lease to have run out', () => Date.now() > firstEnd + 50);
    assert.ok((await leaseEnd(prefix, task.taskId)) > firstEnd, 'the lease was renewed');
    assert.equal((await reader.store.getTask(task.taskId))?.status, 'working');
    await running.store.storeTaskResult(task.taskId, 'completed', { content: [] });
    const finishedEnd = await leaseEnd(prefix, task.taskId);
    await waitFor('the last lease to have run out', () => Date.now() > finishedEnd + 50);
    assert.equal((await reader.store.getTask(task.taskId))?.status, 'completed', 'a finished task is left as it ended');
  } finally {
    for (const bridge of [running, reader]) {
      await bridge.leases.close();
      bridge.connection.disconnect();
    }
  }
});

test('a bridge that stops fails the tasks still running in it at once, and leaves the others alone', async () => {
  const prefix = uniquePrefix('task-lease-stop');
  const stopping = bridgeProcess(prefix, 'session-3');
  const reader = bridgeProcess(prefix, 'session-3');
  try {
    const unfinished = await stopping.store.createTask({}, 1, request);
    const finished = await stopping.store.createTask({}, 2, request);
    await stopping.store.storeTaskResult(finished.taskId, 'completed', { content: [{ type: 'text', text: 'done' }] });
    await stopping.leases.close();
    const seen = await reader.store.getTask(unfinished.taskId);
    assert.equal(seen?.status, 'failed');
    assert.ok(Date.now() < (await leaseEnd(prefix, unfinished.taskId)), 'failed before its lease ran out');
    assert.equal((await reader.store.getTask(finished.taskId))?.status, 'completed');
    assert.deepEqual((await reader.store.getTaskResult(finished.taskId)).content, [{ type: 'text', text: 'done' }]);
  } finally {
    stopping.connection.disconnect();
    await reader.leases.close();
    reader.connection.disconnect();
  }
});
