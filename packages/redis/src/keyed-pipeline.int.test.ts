/**
 * KeyedPipeline's replies, in order and one per command, whether its commands go as they are (a
 * few) or in pipelines (more); either way they are sent by the time exec() returns.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { Redis } from 'ioredis';
import { KEYED_PIPELINE_DIRECT_MAX, KeyedPipeline } from './cluster.js';
import { createRedisClient } from './resolve.js';
import { testRedis, uniquePrefix } from './testing.js';

const clients: Redis[] = [];
after(() => clients.forEach((client) => client.disconnect()));

/** A client that counts the ioredis pipelines made on it. */
async function countingClient(): Promise<{ client: Redis; pipelines: () => number }> {
  const client = createRedisClient((await testRedis()).url);
  clients.push(client);
  let made = 0;
  const pipeline = client.pipeline.bind(client);
  client.pipeline = ((...args: Parameters<Redis['pipeline']>) => ((made += 1), pipeline(...args))) as Redis['pipeline'];
  return { client, pipelines: () => made };
}

/** `count` RPUSHes of their index onto `key`, put on a KeyedPipeline. */
function pushes(client: Redis, key: string, count: number): KeyedPipeline {
  const commands = new KeyedPipeline(client);
  for (let i = 0; i < count; i += 1) commands.on(key).rpush(key, String(i));
  return commands;
}

test('a few commands go without a pipeline, each answered in order with its reply or its error', async () => {
  const { client, pipelines } = await countingClient();
  const prefix = uniquePrefix('keyed-direct');
  const commands = new KeyedPipeline(client);
  commands.on(`${prefix}:a`).set(`${prefix}:a`, 'not a number');
  commands.on(`${prefix}:a`).incr(`${prefix}:a`);
  commands.on(`${prefix}:b`).hset(`${prefix}:b`, { f: '1' }).hget(`${prefix}:b`, 'f');
  assert.equal(commands.length, KEYED_PIPELINE_DIRECT_MAX);
  const replies = await commands.exec();
  assert.equal(pipelines(), 0);
  assert.deepEqual(replies.map(([error]) => error?.message.includes('not an integer') ?? null), [null, true, null, null]);
  assert.deepEqual(replies.map(([, value]) => value), ['OK', null, 1, '1']);
});

test('more commands go in pipelines, answered in the order they were put', async () => {
  const { client, pipelines } = await countingClient();
  const prefix = uniquePrefix('keyed-piped');
  const keys = Array.from({ length: 12 }, (_, i) => `${prefix}:{k${i}}`);
  const writes = new KeyedPipeline(client);
  keys.forEach((key, i) => writes.on(key).set(key, String(i)));
  writes.on(keys[0] as string).incr(keys[0] as string);
  const replies = await writes.exec();
  assert.ok(pipelines() >= 1);
  assert.deepEqual(replies.map(([error, value]) => error ?? value), [...keys.map(() => 'OK'), 1]);
});

test('commands put on it are sent by the time exec() returns: a command issued after follows them', async () => {
  const { client } = await countingClient();
  const prefix = uniquePrefix('keyed-order');
  for (const count of [1, KEYED_PIPELINE_DIRECT_MAX + 2]) {
    const key = `${prefix}:${count}`;
    const sent = pushes(client, key, count).exec();
    const read = client.lrange(key, 0, -1);
    await sent;
    assert.equal((await read).length, count, `${count} commands`);
  }
});

test('execOrThrow answers the results in order, or fails with a failed command\'s error however the commands went', async () => {
  const { client } = await countingClient();
  const prefix = uniquePrefix('keyed-strict');
  for (const count of [2, KEYED_PIPELINE_DIRECT_MAX + 2]) {
    const key = `${prefix}:${count}`;
    assert.deepEqual(await pushes(client, key, count).execOrThrow(), Array.from({ length: count }, (_, i) => i + 1));
    const failing = new KeyedPipeline(client);
    for (let i = 0; i < count - 1; i += 1) failing.on(key).llen(key);
    // A list read as a hash: WRONGTYPE, which exec() answers as that command's reply.
    failing.on(key).hget(key, 'field');
    await assert.rejects(failing.execOrThrow(), /WRONGTYPE/, `${count} commands`);
  }
});
