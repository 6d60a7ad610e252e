import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanKeys } from './cluster.js';
import { createRedisClient } from './resolve.js';
import { testRedis, uniquePrefix } from './testing.js';

test('tests share the run\'s real Redis and keep apart by key prefix', async () => {
  const redis = await testRedis();
  const a = uniquePrefix('redis');
  const b = uniquePrefix('redis');
  assert.notEqual(a, b);
  const client = createRedisClient(redis.url);
  try {
    await client.set(`${a}:k`, 'one');
    await client.set(`${b}:k`, 'two');
    assert.equal(await client.get(`${a}:k`), 'one');
    assert.deepEqual(await scanKeys(client, `${a}:*`), [`${a}:k`]);
    await Promise.all([client.del(`${a}:k`), client.del(`${b}:k`)]);
  } finally {
    client.disconnect();
  }
});
