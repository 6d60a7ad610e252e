import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Cluster } from 'ioredis';
import { KeyedPipeline, keySlot, scanKeys } from './cluster.js';
import { findRedisServer } from './install.js';
import { startLocalCluster, type LocalCluster } from './local-cluster.js';
import { pingRedis } from './local-server.js';
import { createRedisClient, isCluster } from './resolve.js';

let cluster: LocalCluster;

before(async () => {
  const binary = findRedisServer(process.env.PATH ?? '');
  assert.ok(binary, 'redis-server is installed');
  cluster = await startLocalCluster({ binary });
});

after(() => cluster?.stop());

test('the local cluster has three masters that share every slot between them', async () => {
  assert.equal(cluster.nodes.length, 3);
  assert.match(cluster.url, /^redis-cluster:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/);
  const client = createRedisClient(cluster.url);
  try {
    assert.equal(isCluster(client), true);
    await client.ping();
    const masters = (client as unknown as Cluster).nodes('master');
    assert.equal(masters.length, 3);
    const ranges = (await masters[0]!.call('CLUSTER', 'SLOTS')) as [number, number, ...unknown[]][];
    const served = ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
    assert.equal(served, 16384);
    assert.equal(new Set(ranges.map((range) => JSON.stringify(range[2]))).size, 3);
  } finally {
    client.disconnect();
  }
});

test('a pipeline over keys of every master, a scan and pub/sub work through the one client factory', async () => {
  const client = createRedisClient(cluster.url);
  const subscriber = createRedisClient(cluster.url);
  try {
    const keys = Array.from({ length: 30 }, (_, i) => `t:cluster:{k${i}}`);
    assert.ok(new Set(keys.map(keySlot)).size > 20, 'the keys spread over many slots');
    const writes = new KeyedPipeline(client);
    keys.forEach((key, i) => writes.on(key).set(key, String(i)));
    assert.ok((await writes.exec()).every(([error]) => error === null));
    const reads = new KeyedPipeline(client);
    for (const key of keys) reads.on(key).get(key);
    assert.deepEqual((await reads.exec()).map(([, value]) => value), keys.map((_, i) => String(i)));
    assert.deepEqual((await scanKeys(client, 't:cluster:*')).sort(), [...keys].sort());
    const owners = new Set(await Promise.all((client as unknown as Cluster).nodes('master').map(async (node) => (await node.dbsize()) > 0)));
    assert.deepEqual([...owners], [true], 'every master holds some of the keys');

    const heard = new Promise<string>((resolve) => subscriber.on('message', (_channel: string, message: string) => resolve(message)));
    await subscriber.subscribe('t:cluster:channel');
    // A message published through any master reaches a subscriber connected to another.
    await client.publish('t:cluster:channel', 'run-1');
    assert.equal(await heard, 'run-1');
  } finally {
    client.disconnect();
    subscriber.disconnect();
  }
});

test('stopping the cluster ends its servers', async () => {
  const local = await startLocalCluster({ binary: findRedisServer(process.env.PATH ?? '')! });
  await local.stop();
  const alive = await Promise.all(local.nodes.map((node) => pingRedis(`redis://${node}`, 300)));
  assert.deepEqual(alive, [false, false, false]);
});
