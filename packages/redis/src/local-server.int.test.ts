/**
 * The local redis-server: started with AOF under its data directory, reused by a second caller
 * instead of started twice, and stopped by its owner.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findRedisServer, ensureRedisServer } from './install.js';
import { pingRedis, startLocalRedis } from './local-server.js';
import { createRedisClient, resolveRedis } from './resolve.js';

const binary = () => findRedisServer(process.env.PATH ?? '') ?? ensureRedisServer({ searchPath: process.env.PATH ?? '', log: () => undefined });

test('a local server starts on loopback with AOF on, keeps data in its directory, and stops', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));
  const server = await startLocalRedis({ binary: binary(), dataDir });
  assert.equal(server.owned, true);
  assert.match(server.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
  const client = createRedisClient(server.url);
  try {
    assert.deepEqual(await client.config('GET', 'appendonly'), ['appendonly', 'yes']);
    assert.deepEqual(await client.config('GET', 'dir'), ['dir', dataDir]);
    await client.set('k', 'v');
  } finally {
    client.disconnect();
  }
  assert.ok(existsSync(path.join(dataDir, 'appendonlydir')));
  await server.stop();
  assert.equal(await pingRedis(server.url, 300), false);
});

test('a second caller reuses the running server instead of starting another on the same files', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));
  const first = await startLocalRedis({ binary: binary(), dataDir });
  try {
    const second = await startLocalRedis({ binary: binary(), dataDir });
    assert.equal(second.url, first.url);
    assert.equal(second.owned, false);
    await second.stop();
    assert.equal(await pingRedis(first.url), true, 'a reuser does not stop the owner\'s server');
  } finally {
    await first.stop();
  }
});

test('two callers starting at once on one directory share one server, so one AOF has one writer', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));
  const started = await Promise.all([startLocalRedis({ binary: binary(), dataDir }), startLocalRedis({ binary: binary(), dataDir }), startLocalRedis({ binary: binary(), dataDir })]);
  try {
    assert.equal(new Set(started.map((s) => s.url)).size, 1, `urls: ${started.map((s) => s.url).join(', ')}`);
    assert.equal(started.filter((s) => s.owned).length, 1);
    assert.ok(!existsSync(path.join(dataDir, 'start.lock')), 'the start lock is released');
  } finally {
    for (const server of started) await server.stop();
  }
});

test('a start lock left by a process that died is taken over', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(path.join(dataDir, 'start.lock'), gone.stdout);
  const server = await startLocalRedis({ binary: binary(), dataDir });
  try {
    assert.equal(server.owned, true);
    assert.equal(await pingRedis(server.url), true);
  } finally {
    await server.stop();
  }
});

test('data written before a restart is there after it (AOF)', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sy-redis-'));
  const first = await startLocalRedis({ binary: binary(), dataDir });
  const writer = createRedisClient(first.url);
  await writer.set('survives', 'yes');
  writer.disconnect();
  await first.stop();
  const second = await startLocalRedis({ binary: binary(), dataDir });
  const reader = createRedisClient(second.url);
  try {
    assert.equal(await reader.get('survives'), 'yes');
  } finally {
    reader.disconnect();
    await second.stop();
  }
});

test('a REDIS_URL is used as given, and a URL of another scheme is refused', async () => {
  const handle = await resolveRedis({ url: 'redis://10.1.2.3:6380/2' });
  assert.equal(handle.url, 'redis://10.1.2.3:6380/2');
  assert.equal(handle.owned, false);
  await assert.rejects(resolveRedis({ url: 'http://127.0.0.1:6379' }), /redis:\/\//);
});
