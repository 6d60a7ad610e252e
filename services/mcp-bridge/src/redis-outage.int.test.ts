/**
 * The bridge while Redis is gone: /mcp answers 503 redis_unavailable within a second and /health
 * says degraded, instead of hanging for the outage; both recover when Redis is back.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { RestartableRedis, uniquePrefix } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

const KEY = 'bridge-outage-key';
let redis: RestartableRedis;
let bridge: RunningBridge;
before(async () => {
  redis = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
  bridge = await startBridgeHttp({ redisUrl: redis.url, prefix: uniquePrefix('mcp-outage'), apiKeys: [KEY], logger: createLogger({ name: 'mcp-bridge', level: 'silent' }) });
});
// A test that fails while Redis is down must not leave it down: closing the stack waits on it.
afterEach(async () => {
  if (!redis.running) await redis.up();
});
after(async () => {
  await bridge.close();
  await redis.close();
});

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'outage-test', version: '1' } } };

async function timed(url: string, init?: RequestInit): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, ms: Math.round(performance.now() - started), text };
}

test('while Redis is down the bridge answers 503 within a second, and serves again when it is back', async () => {
  const post = () => timed(bridge.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
  assert.equal((await post()).status, 200);
  await redis.kill();
  const mcp = await post();
  const health = await timed(new URL('/health', bridge.url).href);
  process.stdout.write(`# bridge while Redis is down: /mcp ${mcp.status} in ${mcp.ms} ms, /health ${health.status} in ${health.ms} ms\n`);
  assert.equal(mcp.status, 503);
  assert.match(mcp.text, /redis_unavailable/);
  assert.ok(mcp.ms < 3000, `/mcp answered in ${mcp.ms} ms`);
  assert.equal(health.status, 503);
  assert.match(health.text, /degraded/);
  assert.ok(health.ms < 3000, `/health answered in ${health.ms} ms`);

  await redis.up();
  const deadline = Date.now() + 15_000;
  let again = await post();
  while (again.status !== 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    again = await post();
  }
  assert.equal(again.status, 200, 'the bridge recovered by itself');
});
