import { after, before, test } from 'node:test';
import { createRedisClient } from '@switchyard/redis';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'footprint', faults: { chunkDelayMs: 60 } });
});
after(() => stack.close());

test('probe', async () => {
  const created = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a beekeeper who hears the hive sing' }) });
  await stack.waitForRun(created.body.run_id, 120_000);
  const redis = createRedisClient(stack.redisUrl);
  const keys = await redis.keys(`${stack.prefix}:*`);
  for (const key of keys.sort()) {
    const type = await redis.type(key);
    process.stdout.write(`# ${key.slice(stack.prefix.length)} ${type} ${await redis.memory('USAGE', key, 'SAMPLES', 0)}\n`);
  }
  const hash = await redis.hgetall(`${stack.prefix}:run:${created.body.run_id}`);
  for (const [k, v] of Object.entries(hash)) process.stdout.write(`## ${k} ${v.length}\n`);
  process.stdout.write(`# events ${await redis.xlen(`${stack.prefix}:run:${created.body.run_id}:events`)}\n`);
  const events = await redis.xrange(`${stack.prefix}:run:${created.body.run_id}:events`, '-', '+');
  (await import('node:fs')).writeFileSync('/tmp/bounded/run.json', JSON.stringify({ hash, events }));
  redis.disconnect();
});
