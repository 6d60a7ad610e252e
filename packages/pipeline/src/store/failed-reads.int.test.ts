/**
 * Reads that fail are not reads that found nothing: a caller that took a failed reply for a run
 * gone would unlist live runs or release their places, drop batches from their index, or fail
 * the runs of a version it took for deleted. Redis answers NOPERM to a command its ACL
 * user may not run, which makes a reply fail on demand.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Cluster, Redis } from 'ioredis';
import { createRedisClient, isCluster, testRedis, uniquePrefix } from '@switchyard/redis';
import { BatchStore } from './batch-store.js';
import { runKeys } from './keys.js';
import { PipelineStore } from './pipeline-store.js';
import { RunStore } from './run-store.js';
import { ScheduleStore } from '../schedules/schedule-store.js';

let admin: Redis;
let limited: Redis;
const user = `no-exists-${randomBytes(6).toString('hex')}`;

before(async () => {
  const { url } = await testRedis();
  admin = createRedisClient(url);
  // A cluster client knows its nodes once connected.
  await admin.ping();
  const password = randomBytes(12).toString('hex');
  // Everything but the reads these callers make of each record. On every node of a cluster.
  for (const node of nodesOf(admin)) await node.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-exists', '-hmget', '-hget', '-hgetall');
  limited = createRedisClient(url.replace('://', `://${user}:${password}@`));
});
after(async () => {
  limited.disconnect();
  for (const node of nodesOf(admin)) await node.call('ACL', 'DELUSER', user);
  admin.disconnect();
});

const nodesOf = (client: Redis): Redis[] => (isCluster(client) ? (client as unknown as Cluster).nodes('all') : [client]);

async function oneRun(label: string) {
  const prefix = uniquePrefix(label);
  const id = await new RunStore({ redis: admin, prefix }).createRun({ kind: 'story', request: { topic: 't' }, stages: ['search'] });
  return { id, store: new RunStore({ redis: limited, prefix }), listed: async () => admin.zscore(runKeys(prefix).runIndex, id) };
}

test('pruning the run index fails, and unlists no run, when it cannot read whether the runs are there', async () => {
  const { store, listed } = await oneRun('prune-unread');
  await assert.rejects(store.pruneRunIndex({ createdBefore: Date.now() + 1000, maxIds: 100 }), /NOPERM/);
  assert.notEqual(await listed(), null, 'the run is still listed');
});

test("the reconciler's read of active runs fails rather than answering them gone", async () => {
  const { id, store } = await oneRun('active-unread');
  await assert.rejects(store.getActiveRuns([id]), /NOPERM/);
  await assert.rejects(store.getStatesWithFlow([id]), /NOPERM/);
});

test('listing batches fails, and drops no batch from the index, when it cannot read them', async () => {
  const prefix = uniquePrefix('batches-unread');
  const { batchId } = await new BatchStore(new RunStore({ redis: admin, prefix })).createBatch({ runs: [{ kind: 'story', request: { topic: 't' }, stages: ['search'] }] });
  const limitedStore = new RunStore({ redis: limited, prefix });
  await assert.rejects(new BatchStore(limitedStore).listBatches({ offset: 0, limit: 10 }), /NOPERM/);
  assert.notEqual(await admin.zscore(limitedStore.keys.batchIndex, batchId), null, 'the batch is still listed');
});

test('a pinned version or a schedule that cannot be read fails, rather than reading as gone', async () => {
  const prefix = uniquePrefix('versions-unread');
  await assert.rejects(new PipelineStore({ redis: limited, prefix }).pinned('story', 1), /NOPERM/);
  const schedules = new ScheduleStore({ redis: limited, prefix });
  try {
    await assert.rejects(schedules.get('nightly'), /NOPERM/);
  } finally {
    await schedules.close();
  }
});
