/**
 * The bridge's HTTP endpoint meets the same hostile bodies as the API: every answer is a 4xx (a
 * JSON-RPC error for what reaches /mcp), never a 5xx, and the bridge keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { testRedis, uniquePrefix } from '@switchyard/redis';
import { malformedBodies } from '../../orchestrator/src/testing/malformed.js';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';

const KEY = 'bridge-bad-input-key';
let bridge: RunningBridge;
before(async () => {
  bridge = await startBridgeHttp({ redisUrl: (await testRedis()).url, prefix: uniquePrefix('mcp-bad-input'), apiKeys: [KEY], logger: createLogger({ name: 'mcp-bridge', level: 'silent' }) });
});
after(() => bridge.close());

test('malformed bodies at /mcp answer 4xx, never 5xx, and the bridge still answers afterwards', async () => {
  const byStatus: Record<string, number> = {};
  const problems: string[] = [];
  for (const request of malformedBodies()) {
    const res = await fetch(bridge.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, accept: 'application/json, text/event-stream', ...request.headers },
      body: request.body as RequestInit['body'],
    });
    byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
    if (res.status < 400 || res.status >= 500) problems.push(`${request.name} → ${res.status}: ${(await res.text()).slice(0, 200)}`);
    else await res.body?.cancel();
  }
  process.stdout.write(`# bridge, malformed requests: ${JSON.stringify(byStatus)}\n`);
  assert.deepEqual(problems, []);
  const health = await fetch(new URL('/health', bridge.url));
  assert.equal(health.status, 200);
});
