/**
 * A server that forgets its scripts under a live connection (SCRIPT FLUSH) fails the append calls
 * in flight (NOSCRIPT), and ioredis sends each again by itself. Had a later call gone before such
 * a resend, the sequence check would refuse the resent appends as applied and they would be lost.
 * Run on a Redis of its own: the flushes would reach every other test's scripts on a shared one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, ensureRedisServer, findRedisServer, startLocalRedis, type LocalRedis } from '@switchyard/redis';
import { EventAppends } from './event-appends.js';

let server: LocalRedis;
let redis: Redis;
before(async () => {
  const searchPath = process.env.PATH ?? '';
  const binary = findRedisServer(searchPath) ?? ensureRedisServer({ searchPath, log: () => undefined });
  server = await startLocalRedis({ binary, dataDir: mkdtempSync(path.join(os.tmpdir(), 'sy-appends-flush-')) });
  redis = createRedisClient(server.url);
});
after(async () => {
  redis.disconnect();
  await server.stop();
});

test('appends made while the server forgets its scripts again and again all land, in order: none is overtaken and refused as applied', async () => {
  const run = '{t:appends-flush}:run';
  const events = '{t:appends-flush}:events';
  await redis.hset(run, 'status', 'running');
  const flusher = redis.duplicate();
  const appends = new EventAppends({ redis, writer: 'w', maxlen: '100000' });
  const total = 40_000;
  let flushes = 0;
  // A flush every 10 ms, while appends are made five a turn of the event loop.
  const flushing = setInterval(() => {
    flushes += 1;
    flusher.script('FLUSH').catch(() => undefined);
  }, 10);
  const ids: (string | null)[] = [];
  try {
    let pending: Promise<void>[] = [];
    for (let seq = 1; seq <= total; seq++) {
      pending.push(appends.submit({ run, events, seq, type: 'content', data: String(seq) }).then((id) => void (ids[seq - 1] = id)));
      if (seq % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
      if (pending.length >= 2000) await Promise.all(pending.splice(0));
    }
    await Promise.all(pending);
    pending = [];
  } finally {
    clearInterval(flushing);
    flusher.disconnect();
  }
  const refused = ids.filter((id) => id === null).length;
  console.log(`appends under script flushes: ${total} made, ${flushes} flushes, ${refused} refused (lost), ${total - refused} landed`);
  assert.ok(flushes >= 3, 'the scripts were flushed while appends were made');
  assert.equal(refused, 0, 'no append was refused as applied');
  const landed = await redis.xrange(events, '-', '+');
  assert.equal(landed.length, total);
  assert.ok(
    landed.every(([, fields], i) => fields[3] === String(i + 1)),
    'in the order made',
  );
});
