/**
 * MCP sessions are capped per API key (429) and in all (503), with Retry-After and a JSON-RPC
 * error, whatever the burst; and a client's initialize params are bounded before anything is
 * stored: a 10 MB initialize is refused (413) or, when the bulk is in clientInfo's names, cut,
 * and Redis holds nothing big either way.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { keyId } from '@switchyard/http-kit';
import { createLogger } from '@switchyard/logger';
import { createRedisClient, keyspace, scanKeys, testRedis, uniquePrefix } from '@switchyard/redis';
import { sessionKeys } from './http/keys.js';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

const KEY_A = 'mcp-limits-key-a-0123456789';
const KEY_B = 'mcp-limits-key-b-0123456789';
const KEY_C = 'mcp-limits-key-c-0123456789';
const TEN_MB = 10 * 1024 * 1024;

let bridge: RunningBridge;
let redis: Redis;
let prefix: string;
/** The session of KEY_C each test leaves open. */
let sessionOfC = '';
before(async () => {
  const { url } = await testRedis();
  prefix = uniquePrefix('mcp-limits');
  redis = createRedisClient(url);
  bridge = await startBridgeHttp({ redisUrl: url, prefix, apiKeys: [KEY_A, KEY_B, KEY_C], logger: createLogger({ name: 'mcp-limits', level: 'silent' }), sessionLimits: { maxSessions: 6, maxSessionsPerKey: 3 } });
});
after(async () => {
  await bridge.close();
  await redis.quit();
});

interface Answer {
  status: number;
  sessionId: string | null;
  retryAfter: string | null;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  id?: unknown;
}

async function initialize(key: string, params: Record<string, unknown> = {}, accept = 'application/json, text/event-stream'): Promise<Answer> {
  const res = await fetch(bridge.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits-test', version: '1' }, ...params } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('application/json') ? (JSON.parse(text) as Omit<Answer, 'status'>) : {};
  return { ...json, status: res.status, sessionId: res.headers.get('mcp-session-id'), retryAfter: res.headers.get('retry-after') };
}

const endSession = (key: string, sessionId: string) => fetch(bridge.mcpUrl, { method: 'DELETE', headers: { authorization: `Bearer ${key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });

/** Keys of this bridge's sessions in Redis, and the bytes they hold. */
async function sessionFootprint(): Promise<{ records: number; bytes: number }> {
  const keys = (await scanKeys(redis, `${keyspace(prefix).pattern}`)).filter((key) => key.includes(':mcp'));
  let bytes = 0;
  for (const key of keys) bytes += Number(await redis.memory('USAGE', key)) || 0;
  return { records: keys.filter((key) => /:mcp:[0-9a-f-]{36}\}$/.test(key)).length, bytes };
}

test('sessions past a key\'s cap are refused with 429, past the deployment\'s with 503, both with Retry-After; a burst admits exactly the cap', { timeout: 60_000 }, async () => {
  const first = [await initialize(KEY_A), await initialize(KEY_A), await initialize(KEY_A)];
  assert.deepEqual(first.map((answer) => answer.status), [200, 200, 200]);
  const refused = await initialize(KEY_A);
  assert.equal(refused.status, 429);
  assert.equal(refused.sessionId, null);
  assert.equal(refused.id, 7, 'the refusal answers the request by its id');
  assert.equal(refused.error?.code, -32000);
  assert.match(refused.error?.message ?? '', /This API key holds 3 MCP sessions/);
  const retryAfter = Number(refused.retryAfter);
  assert.ok(retryAfter > 0 && retryAfter <= 24 * 3600, `Retry-After ${refused.retryAfter}: when the oldest session lapses`);
  assert.deepEqual(refused.error?.data, { limit: 3, retry_after_s: retryAfter });

  // The burst: 100 initialize requests of one key at once; exactly its cap gets through.
  const started = performance.now();
  const burst = Promise.all(Array.from({ length: 100 }, () => initialize(KEY_B)));
  const health = await fetch(`${bridge.url}/health`);
  const healthMs = performance.now() - started;
  const answers = await burst;
  const byStatus = answers.reduce<Record<number, number>>((counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {});
  process.stdout.write(`# 100 initialize requests of one key at once: ${JSON.stringify(byStatus)}; /health meanwhile ${health.status} in ${Math.round(healthMs)} ms\n`);
  assert.deepEqual(byStatus, { 200: 3, 429: 97 });
  assert.equal(health.status, 200);
  assert.deepEqual(await bridge.app.quota.held(keyId(KEY_B)), { all: 6, key: 3 });

  // Six held in all: a third key is refused by the deployment's cap.
  const full = await initialize(KEY_C);
  assert.equal(full.status, 503);
  assert.ok(Number(full.retryAfter) > 0);
  assert.match(full.error?.message ?? '', /This deployment holds 6 MCP sessions/);

  // A session ended frees its place.
  const ended = await endSession(KEY_A, first[0]?.sessionId ?? '');
  assert.equal(ended.status, 200);
  const third = await initialize(KEY_C);
  assert.equal(third.status, 200);
  sessionOfC = third.sessionId ?? '';
  assert.equal((await initialize(KEY_A)).status, 503, 'the place went to the third key');
});

test('a 10 MB initialize is refused with 413 before anything is stored, and one whose bulk is in clientInfo is kept cut', { timeout: 60_000 }, async () => {
  // A place for one more session, so that only the bounds can refuse it.
  assert.equal((await endSession(KEY_C, sessionOfC)).status, 200);
  const before = await sessionFootprint();
  const held = await bridge.app.quota.held(keyId(KEY_C));

  const huge = await initialize(KEY_C, { capabilities: { experimental: { blob: { data: 'x'.repeat(TEN_MB) } } } });
  assert.equal(huge.status, 413);
  assert.equal(huge.error?.code, -32602);
  assert.equal(huge.id, 7);
  assert.match(huge.error?.message ?? '', /more than the 16384 this bridge keeps/);
  assert.deepEqual(await sessionFootprint(), before, 'no key was written');
  assert.deepEqual(await bridge.app.quota.held(keyId(KEY_C)), held, 'no place was taken');

  // 10 MB of names in clientInfo: the session opens, with its names cut.
  const named = await initialize(KEY_C, { clientInfo: { name: 'n'.repeat(TEN_MB / 2), version: 'v'.repeat(TEN_MB / 2) } });
  const afterwards = await sessionFootprint();
  process.stdout.write(`# a 10 MB initialize: ${huge.status}; one with 10 MB of clientInfo: ${named.status}, its session's keys ${afterwards.bytes - before.bytes} bytes\n`);
  assert.equal(named.status, 200);
  sessionOfC = named.sessionId ?? '';
  const record = await redis.hget(sessionKeys(prefix, named.sessionId ?? '').record, 'initialize');
  const kept = JSON.parse(record ?? '{}') as { clientInfo?: { name?: string; version?: string } };
  assert.deepEqual(kept.clientInfo, { name: 'n'.repeat(256), version: 'v'.repeat(256) });
  assert.equal(afterwards.records, before.records + 1);
  assert.ok(afterwards.bytes - before.bytes < 64 * 1024, `session keys grew by ${afterwards.bytes - before.bytes} bytes`);
});

test('an initialize the transport refuses takes no place', { timeout: 30_000 }, async () => {
  assert.equal((await endSession(KEY_C, sessionOfC)).status, 200);
  const held = await bridge.app.quota.held(keyId(KEY_C));
  const refused = await initialize(KEY_C, {}, 'text/plain');
  assert.equal(refused.status, 406, 'the transport wants an Accept naming JSON and SSE');
  assert.deepEqual(await bridge.app.quota.held(keyId(KEY_C)), held);
  assert.equal((await initialize(KEY_C)).status, 200, 'the place is still there');
});
