/**
 * Dashboard sessions end on the server: after *Forget key* the same cookie is refused, by this
 * orchestrator and by one started afresh on the same Redis; a session also ends when idle, at its
 * absolute end however busy, when its key leaves API_KEYS, and when its key opens too many.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { parseToolServicesEnv } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { createRedisClient, keyspace, scanKeys, testRedis, uniquePrefix } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator, type StartOrchestratorOptions } from '../server.js';

const KEY = 'session-end-key-0123';
const OTHER = 'session-end-other-0123';
let redisUrl: string;
let redis: Redis;
const started: RunningOrchestrator[] = [];

before(async () => {
  redisUrl = (await testRedis()).url;
  redis = createRedisClient(redisUrl);
});
after(async () => {
  await Promise.all(started.map((api) => api.close()));
  await redis.quit();
});

/** An orchestrator (no workers, no tool services: only its sessions are used here). */
async function orchestrator(prefix: string, options: Partial<StartOrchestratorOptions> = {}): Promise<RunningOrchestrator> {
  const api = await startOrchestrator({ redisUrl, prefix, apiKeys: [KEY, OTHER], toolServices: parseToolServicesEnv({}), logger: createLogger({ name: 'test', level: 'silent' }), ...options });
  started.push(api);
  return api;
}

async function stop(api: RunningOrchestrator): Promise<void> {
  started.splice(started.indexOf(api), 1);
  await api.close();
}

async function openSession(api: RunningOrchestrator, key = KEY): Promise<string> {
  const res = await fetch(`${api.url}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  assert.equal(res.status, 204);
  const pair = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  assert.match(pair, /^sy_session=[\w-]{43}$/);
  return pair;
}

/** The status of reading the runs with the cookie alone. */
async function statusWith(api: RunningOrchestrator, cookie: string, path = '/v1/runs'): Promise<number> {
  const res = await fetch(`${api.url}${path}`, { headers: { cookie } });
  await res.arrayBuffer();
  return res.status;
}

const sessionKeys = (prefix: string) => scanKeys(redis, `${keyspace(prefix).shared}:ui:session:*`);

test('after Forget key the same cookie is refused (401), by the API and Bull Board, and by an orchestrator started afresh on the same Redis', async () => {
  const prefix = uniquePrefix('session-end');
  const api = await orchestrator(prefix);
  const cookie = await openSession(api);
  const kept = await openSession(api);
  assert.equal(await statusWith(api, cookie), 200);
  assert.equal((await sessionKeys(prefix)).length, 2, 'the sessions are records in Redis');
  const forget = await fetch(`${api.url}/ui/session`, { method: 'DELETE', headers: { cookie } });
  assert.equal(forget.status, 204);
  assert.match(forget.headers.get('set-cookie') ?? '', /^sy_session=; Max-Age=0/);
  assert.equal(await statusWith(api, cookie), 401, 'the replayed cookie is refused');
  assert.equal(await statusWith(api, cookie, '/admin/queues/api/queues'), 401);
  assert.equal((await sessionKeys(prefix)).length, 1, 'its record is gone');

  await stop(api);
  const restarted = await orchestrator(prefix);
  assert.equal(await statusWith(restarted, cookie), 401, 'a restart does not revive it');
  assert.equal(await statusWith(restarted, kept), 200, 'a session not ended goes on across the restart');
});

test('a session whose key is taken out of API_KEYS ends, and its record with it', async () => {
  const prefix = uniquePrefix('session-end-removed');
  const api = await orchestrator(prefix);
  const cookie = await openSession(api, OTHER);
  await stop(api);
  const without = await orchestrator(prefix, { apiKeys: [KEY] });
  assert.equal(await statusWith(without, cookie), 401);
  assert.deepEqual(await sessionKeys(prefix), [], 'the record was removed on sight');
  await stop(without);
  const back = await orchestrator(prefix);
  assert.equal(await statusWith(back, cookie), 401, 'putting the key back does not revive the session');
});

test('an idle session ends after the idle time, and its cookie is then refused', async () => {
  const prefix = uniquePrefix('session-end-idle');
  const api = await orchestrator(prefix, { sessions: { idleMs: 800 } });
  const cookie = await openSession(api);
  assert.equal(await statusWith(api, cookie), 200);
  const [record] = await sessionKeys(prefix);
  assert.ok(record);
  const ttl = await redis.pttl(record);
  assert.ok(ttl > 0 && ttl <= 800, `idle ttl ${ttl}`);
  // Waiting on Redis, not on the API: a request would refresh the session.
  const deadline = Date.now() + 5000;
  while ((await redis.exists(record)) === 1) {
    assert.ok(Date.now() < deadline, 'the record expired');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await statusWith(api, cookie), 401);
});

test('a busy session ends at its absolute end all the same, however often it is used', async () => {
  const prefix = uniquePrefix('session-end-max');
  const api = await orchestrator(prefix, { sessions: { idleMs: 1000, maxMs: 1500 } });
  const opened = Date.now();
  const cookie = await openSession(api);
  let status = 200;
  while (status === 200) {
    assert.ok(Date.now() - opened < 5000, 'the session ended');
    status = await statusWith(api, cookie);
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const lasted = Date.now() - opened;
  assert.equal(status, 401);
  assert.ok(lasted >= 1400, `it lasted its 1.5 s (${lasted} ms), kept alive by its use`);
});

test('a key opening more sessions than it may hold ends its oldest', async () => {
  const prefix = uniquePrefix('session-end-cap');
  const api = await orchestrator(prefix, { sessions: { perKey: 3 } });
  const cookies = [];
  for (let i = 0; i < 4; i += 1) cookies.push(await openSession(api));
  const statuses = [];
  for (const cookie of cookies) statuses.push(await statusWith(api, cookie));
  assert.deepEqual(statuses, [401, 200, 200, 200]);
  assert.equal((await sessionKeys(prefix)).length, 3);
  assert.equal(await statusWith(api, await openSession(api, OTHER)), 200, 'another key has its own sessions');
});

test('a cookie that is no token of this store, or is the key itself, is refused', async () => {
  const prefix = uniquePrefix('session-end-forged');
  const api = await orchestrator(prefix);
  for (const cookie of ['sy_session=forged', `sy_session=${'A'.repeat(43)}`, `sy_session=${'x'.repeat(5000)}`, `sy_session=${KEY}`]) {
    assert.equal(await statusWith(api, cookie), 401, cookie.slice(0, 40));
  }
});
