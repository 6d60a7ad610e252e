/**
 * A script command sends its text once per socket and its SHA after that, also on a pipeline and a
 * Cluster, and still works when the server forgot the script (SCRIPT FLUSH). What went over the
 * wire is read with MONITOR on every master, kept to this test's script (its text names the
 * test's prefix, so its SHA is its own).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { masters } from './cluster.js';
import { createRedisClient } from './resolve.js';
import { scriptCommand } from './script-command.js';
import { testRedis, uniquePrefix } from './testing.js';

let url: string;
let redis: Redis;
before(async () => {
  url = (await testRedis()).url;
  redis = createRedisClient(url);
});
after(() => redis.disconnect());

/** The EVAL / EVALSHA commands the masters ran for `lua`, in the order each master saw them. */
async function watchScript(lua: string): Promise<{ seen: string[]; stop: () => void }> {
  const sha = createHash('sha1').update(lua).digest('hex');
  const seen: string[] = [];
  const monitors = await Promise.all(
    (await masters(redis)).map(async (node) => {
      const monitor = await node.monitor();
      monitor.on('monitor', (_time: string, args: string[]) => {
        const [name, script] = args;
        if (script === lua || script === sha) seen.push(String(name).toLowerCase());
      });
      return monitor;
    }),
  );
  return { seen, stop: () => monitors.forEach((monitor) => monitor.disconnect()) };
}

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a script command sends its text on the first call of a connection and its SHA after that, on a pipeline too, and works again after SCRIPT FLUSH', async () => {
  const prefix = uniquePrefix('script-command');
  // One line: MONITOR shows a newline escaped.
  const lua = `return redis.call('INCRBY', KEYS[1], ARGV[1]) -- ${prefix}`;
  const key = `${prefix}:counter`;
  const watch = await watchScript(lua);
  try {
    const incr = scriptCommand<number>(redis, 'syTestIncr', lua, { numberOfKeys: 1 });
    assert.equal(await incr(key, 1), 1);
    assert.equal(await incr(key, 1), 2);
    assert.equal(await incr(key, 10), 12);
    await until('three script commands seen', () => watch.seen.length >= 3);
    assert.deepEqual(watch.seen, ['eval', 'evalsha', 'evalsha'], 'the text went once, then the SHA');

    await Promise.all((await masters(redis)).map((node) => node.script('FLUSH')));
    assert.equal(await incr(key, 1), 13, 'a call after the server forgot the script still runs it');
    assert.equal(await incr(key, 1), 14);
    await until('the calls after the flush seen', () => watch.seen.length >= 6);
    // The SHA the server no longer knows (NOSCRIPT), the text again, then the SHA.
    assert.deepEqual(watch.seen.slice(3, 6), ['evalsha', 'eval', 'evalsha']);

    const other = redis.duplicate();
    try {
      assert.equal(await scriptCommand<number>(other, 'syTestIncr', lua, { numberOfKeys: 1 })(key, 1), 15);
      await until('the other connection’s call seen', () => watch.seen.length >= 7);
      assert.equal(watch.seen[6], 'eval', 'another connection sends the text on its first call');
    } finally {
      other.disconnect();
    }
  } finally {
    watch.stop();
  }
});

test('a script command is defined once per connection, and its name given to another script on that connection throws', async () => {
  const client = createRedisClient(url);
  try {
    const first = scriptCommand(client, 'syTestEcho', "return 'one'", { numberOfKeys: 0 });
    const again = scriptCommand(client, 'syTestEcho', "return 'one'", { numberOfKeys: 0 });
    assert.equal(await first(), 'one');
    assert.equal(await again(), 'one');
    assert.throws(() => scriptCommand(client, 'syTestEcho', "return 'two'", { numberOfKeys: 0 }), /another script/);
    assert.throws(() => scriptCommand(client, 'syTestEcho', "return 'one'"), /another script/, 'another key count is another command');
    assert.throws(() => scriptCommand(client, 'get', "return 'one'"), /command of the Redis client/);
    const buffers = scriptCommand<Buffer>(client, 'syTestEcho', "return 'one'", { numberOfKeys: 0, buffers: true });
    assert.deepEqual(await buffers(), Buffer.from('one'));
  } finally {
    client.disconnect();
  }
});
