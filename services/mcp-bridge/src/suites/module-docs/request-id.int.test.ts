/**
 * Seed 003: each module-docs answer is a JSON-RPC response whose `id` is the id of the request it
 * answers, whatever other sessions call meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { testRedis, uniquePrefix } from '@switchyard/redis';
import { startBridgeHttp, type RunningBridge } from '../../http/serve.js';

const KEY = 'module-docs-id-key';
let bridge: RunningBridge;
before(async () => {
  bridge = await startBridgeHttp({ redisUrl: (await testRedis()).url, prefix: uniquePrefix('mcp-module-ids'), apiKeys: [KEY], logger: createLogger({ name: 'mcp-bridge', level: 'silent' }) });
});
after(() => bridge.close());

/** One JSON-RPC message over Streamable HTTP; the reply read from JSON or from the SSE stream. */
async function rpc(body: Record<string, unknown>, session?: string): Promise<{ session: string | null; reply: Record<string, unknown> | undefined }> {
  const res = await fetch(bridge.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('text/event-stream')
    ? text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).filter(Boolean).at(-1)
    : text;
  return { session: res.headers.get('mcp-session-id'), reply: json ? (JSON.parse(json) as Record<string, unknown>) : undefined };
}

async function openSession(name: string): Promise<string> {
  const { session } = await rpc({ jsonrpc: '2.0', id: `init-${name}`, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } } });
  assert.ok(session);
  await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  return session;
}

test('each module-docs answer carries the id of the request it answers, across sessions', async () => {
  const first = await openSession('first');
  const second = await openSession('second');
  const calls: [string, string | number][] = [[first, 'call-a'], [second, 17], [first, 'call-b'], [second, 4242]];
  for (const [session, id] of calls) {
    const { reply } = await rpc({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_type_structure', arguments: { type_name: 'file' } } }, session);
    assert.equal(reply?.id, id, 'the MCP reply answers the request');
    const content = (reply?.result as { structuredContent?: { id?: unknown } } | undefined)?.structuredContent;
    assert.equal(content?.id, id, 'the seed\'s JSON-RPC response inside carries the same id');
  }
});
