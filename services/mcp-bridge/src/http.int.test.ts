import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { createRedisClient, freePort, uniquePrefix } from '@switchyard/redis';
import { createOfflineAuthor, startToolServices } from '@switchyard/tool-services';
import { decode, parseEventId } from './http/event-store.js';
import { sessionKeys } from './http/keys.js';
import { startBridgeHttp, type RunningBridge, type StartBridgeHttpOptions } from './http/serve.js';
import { federationSuite } from './suites/federation/index.js';
import { agentJourney, checkBadCalls, checkEveryToolRefusesBadArguments, checkFederation, checkStagePipeline, checkTasks, checkToolList, ok, snapshotKeys, startTask, waitFor } from './testing/journey.js';

const OTHER_KEY = 'other-key-9876543210';

let stack: TestStack;
let redis: Redis;
let bridge: RunningBridge;
let options: StartBridgeHttpOptions;

before(async () => {
  // A little latency per tool call keeps runs going long enough to be followed and cancelled.
  stack = await startTestStack({ label: 'mcp-http', faults: { latencyMs: 60 } });
  redis = createRedisClient(stack.redisUrl);
  const logger = createLogger({ name: 'mcp-bridge-test', level: 'silent' });
  options = {
    extraSuites: [await federationSuite({ config: stack.toolConfig, logger })],
    redisUrl: stack.redisUrl,
    prefix: stack.prefix,
    apiKeys: [TEST_API_KEY, OTHER_KEY],
    allowedOrigins: ['https://agents.example.com', 'http://localhost:*'],
    logger,
    keepAliveMs: 1000,
    retryIntervalMs: 100,
  };
  bridge = await startBridgeHttp(options);
});
after(async () => {
  await bridge.close();
  await stack.close();
  await redis.quit();
});

const connect = async (url: string, init: { key?: string; sessionId?: string } = {}) => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${init.key ?? TEST_API_KEY}` } },
    ...(init.sessionId ? { sessionId: init.sessionId } : {}),
    reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
  });
  const client = new Client({ name: 'bridge-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
};

const initialize = (headers: Record<string, string>) =>
  fetch(bridge.mcpUrl, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });

test('an agent lists the tools, starts a batch, follows a run, reads the stories, lists runs and cancels a run over Streamable HTTP', async () => {
  const { client } = await connect(bridge.mcpUrl);
  try {
    await checkToolList(client);
    await agentJourney(client);
  } finally {
    await client.close();
  }
});

test('long calls run as MCP tasks over Streamable HTTP, and a replica answers for a task another bridge runs', async () => {
  const { client, transport } = await connect(bridge.mcpUrl);
  const replica = await startBridgeHttp(options);
  try {
    await checkTasks(client);
    const { run_id: runId } = await ok(client, 'start_story', { topic: 'a tram line' });
    const taskId = await startTask(client, 'wait_for_run', { run_id: runId, timeout_s: 60 });
    const elsewhere = await connect(replica.mcpUrl, { sessionId: transport.sessionId as string });
    try {
      const result = await elsewhere.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(result.structuredContent?.status, 'completed');
    } finally {
      await elsewhere.client.close();
    }
  } finally {
    await client.close();
    await replica.close();
  }
});

test('a task whose bridge stops mid-call is reported failed by a replica, with the reason, instead of staying working', async () => {
  // A prefix no worker serves: the run stays queued, so the call waits until its bridge stops.
  const quietOptions = { ...options, prefix: uniquePrefix('mcp-http-stop') };
  const stopping = await startBridgeHttp(quietOptions);
  const replica = await startBridgeHttp(quietOptions);
  const { client, transport } = await connect(stopping.mcpUrl);
  try {
    const { run_id: runId } = await ok(client, 'start_story', { topic: 'a lighthouse nobody keeps' });
    const taskId = await startTask(client, 'wait_for_run', { run_id: runId, timeout_s: 60 });
    await stopping.close();
    const elsewhere = await connect(replica.mcpUrl, { sessionId: transport.sessionId as string });
    try {
      const task = await elsewhere.client.experimental.tasks.getTask(taskId);
      assert.equal(task.status, 'failed');
      assert.match(task.statusMessage ?? '', /stopped before it finished/);
      const result = await elsewhere.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(result.isError, true);
      assert.match(JSON.stringify(result.content), /bridge_stopped/);
    } finally {
      await elsewhere.client.close();
    }
  } finally {
    await client.close().catch(() => undefined);
    await replica.close();
  }
});

test('an AceFlow stage pipeline is started, followed and read over Streamable HTTP', async () => {
  const { client } = await connect(bridge.mcpUrl);
  try {
    await checkStagePipeline(client, 'bridge-http-shop');
  } finally {
    await client.close();
  }
});

test('the tool services\' tools are federated over Streamable HTTP with their schemas as given', async () => {
  const { client } = await connect(bridge.mcpUrl);
  try {
    await checkFederation(client, Object.values(stack.toolConfig.services).map((service) => ({ url: service.url, apiKey: stack.toolConfig.apiKey })));
  } finally {
    await client.close();
  }
});

test('a tool service that answers only after the bridge started has its tools federated then, and clients are told the list changed', async () => {
  const port = await freePort();
  const search = { ...stack.toolConfig.services.search, url: `http://127.0.0.1:${port}` };
  const logger = createLogger({ name: 'mcp-bridge-test', level: 'silent' });
  const federation = await federationSuite({ config: { ...stack.toolConfig, services: { ...stack.toolConfig.services, search } }, logger, rediscoverMs: 50, client: { retry: { retries: 0 }, breaker: { halfOpenAfterMs: 50 } } });
  const late = await startBridgeHttp({ ...options, extraSuites: [federation] });
  const { client } = await connect(late.mcpUrl);
  let told = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (told += 1));
  let services: Awaited<ReturnType<typeof startToolServices>> | undefined;
  try {
    const names = async () => new Set((await client.listTools()).tools.map((tool) => tool.name));
    assert.ok(!(await names()).has('search_relevant_information'), 'the search service was down at start-up');
    assert.ok((await names()).has('generate_structured_outline'), 'the others were federated at start-up');
    // Other suites may announce tools of their own meanwhile (pipelines): wait for this one.
    const toldBefore = told;
    services = await startToolServices({ author: createOfflineAuthor(), logger, apiKeys: [stack.toolConfig.apiKey ?? ''], ports: { search: port } });
    await waitFor('the late service\'s tools', async () => (await names()).has('search_relevant_information'));
    await waitFor('the tool list changed notification', () => told > toldBefore);
    const found = await ok(client, 'search_relevant_information', { topic: 'tidal power', depth: 2 });
    assert.ok(Array.isArray(found.results) && found.results.length > 0, 'the late service answers through the bridge');
  } finally {
    await client.close();
    await late.close();
    federation.close();
    await services?.close();
  }
});

test('bad arguments to every tool are refused as tool results in the tool\'s own error shape, and change nothing in Redis', async () => {
  // A bridge of its own, with no workers beside it, so that any key that moves is the bridge's doing.
  const quiet = await startBridgeHttp({ ...options, prefix: uniquePrefix('mcp-http-bad') });
  const { client } = await connect(quiet.mcpUrl);
  try {
    await ok(client, 'start_story', { topic: 'something to leave alone' });
    // Sessions and their streams record every exchange under :mcp:; nothing else may move.
    const before = await snapshotKeys(redis, quiet.deps.prefix, { except: /:mcp:/ });
    await checkBadCalls(client);
    assert.ok((await checkEveryToolRefusesBadArguments(client)) >= 20);
    assert.deepEqual(await snapshotKeys(redis, quiet.deps.prefix, { except: /:mcp:/ }), before);
  } finally {
    await client.close();
    await quiet.close();
  }
});

test('a request without a key, or with a wrong one, is refused with 401 and a Bearer challenge', async () => {
  const missing = await initialize({});
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer realm="switchyard"/);
  const wrong = await initialize({ authorization: 'Bearer not-a-key' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, 'unauthorized');
  await assert.rejects(connect(bridge.mcpUrl, { key: 'not-a-key' }), (error: Error & { code?: number }) => error.code === 401 && /not valid/.test(error.message));
  assert.equal((await initialize({ 'x-api-key': TEST_API_KEY })).status, 200, 'X-API-Key is accepted too');
});

test('a browser request from a foreign Origin is refused with 403, an allowed one gets CORS headers', async () => {
  const foreign = await initialize({ authorization: `Bearer ${TEST_API_KEY}`, origin: 'http://evil.example' });
  assert.equal(foreign.status, 403);
  assert.match(((await foreign.json()) as { error: { message: string } }).error.message, /Origin http:\/\/evil\.example is not allowed/);
  assert.equal((await initialize({ origin: 'http://localhost.evil.example' })).status, 403, 'refused before any key is looked at');

  assert.equal((await initialize({ authorization: `Bearer ${TEST_API_KEY}`, origin: bridge.url })).status, 200, 'a page of the bridge\'s own loopback origin passes');
  // fetch will not send another Host; a page on a rebinding domain sends its own, and its origin.
  const rebound = await new Promise<number>((resolve, reject) => {
    const headers = { host: 'attacker.example:8090', origin: 'http://attacker.example:8090', authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const req = http.request(bridge.mcpUrl, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  });
  assert.equal(rebound, 403, 'a rebinding domain is not the bridge\'s origin, even with a matching Host');

  const allowed = await initialize({ authorization: `Bearer ${TEST_API_KEY}`, origin: 'http://localhost:5173' });
  assert.equal(allowed.status, 200);
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  assert.match(allowed.headers.get('access-control-expose-headers') ?? '', /Mcp-Session-Id/);
  const preflight = await fetch(bridge.mcpUrl, { method: 'OPTIONS', headers: { origin: 'https://agents.example.com', 'access-control-request-method': 'POST' } });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Mcp-Session-Id/);
});

test('a session answers only to the key that opened it, and an unknown session is 404', async () => {
  const { client, transport } = await connect(bridge.mcpUrl);
  try {
    const sessionId = transport.sessionId as string;
    const asOther = await fetch(bridge.mcpUrl, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${OTHER_KEY}`, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(asOther.status, 404);
    const unknown = await fetch(bridge.mcpUrl, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${TEST_API_KEY}`, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(unknown.status, 404);
  } finally {
    await client.close();
  }
});

test('a session\'s stream resumes from Redis after the bridge is closed and a new one started (Last-Event-ID)', async () => {
  const first = await connect(bridge.mcpUrl);
  const sessionId = first.transport.sessionId as string;
  const { run_id: runId } = await ok(first.client, 'start_story', { topic: 'a ferry at night' });

  // Follow the run, then drop the connection once a few progress events have arrived.
  let token: string | undefined;
  let seen = 0;
  const following = first.client.request(
    { method: 'tools/call', params: { name: 'wait_for_run', arguments: { run_id: runId, timeout_s: 60 }, _meta: { progressToken: 'follow' } } },
    CallToolResultSchema,
    { onresumptiontoken: (eventId) => void (token = eventId), onprogress: () => void (seen += 1) },
  );
  following.catch(() => undefined);
  await waitFor('progress before the disconnect', () => seen >= 2 && token);
  await first.client.close();

  // The old bridge finishes the call with nobody listening: its answer goes to Redis only.
  const cursor = parseEventId(token as string);
  assert.ok(cursor);
  const streamKey = sessionKeys(stack.prefix, sessionId).stream(cursor.streamId);
  await waitFor('the answer stored in the stream', async () => {
    const entries = await redis.xrange(streamKey, '-', '+');
    return entries.map(([, fields]) => decode(fields)).some((message) => message && 'result' in message);
  });
  await bridge.close();

  bridge = await startBridgeHttp(options);
  assert.equal(bridge.app.sessions.size, 0, 'the new bridge starts with no session in memory');
  const second = await connect(bridge.mcpUrl, { sessionId });
  try {
    const replayed: JSONRPCMessage[] = [];
    const deliver = second.transport.onmessage;
    second.transport.onmessage = (message: JSONRPCMessage) => {
      replayed.push(message);
      deliver?.(message);
    };
    const resumed = await second.client.request({ method: 'tools/call', params: { name: 'wait_for_run', arguments: { run_id: runId } } }, CallToolResultSchema, { resumptionToken: token });
    assert.equal(resumed.structuredContent?.status, 'completed');
    assert.equal(resumed.structuredContent?.timed_out, false);
    const progress = replayed.filter((message) => 'method' in message && message.method === 'notifications/progress');
    assert.ok(progress.length >= 1, 'the progress missed while away is replayed');
    assert.equal((progress.at(-1) as unknown as { params: { progress: number } }).params.progress, 100);

    // The session itself lives on in the new bridge: no new initialize, same id, same tools.
    assert.equal(second.transport.sessionId, sessionId);
    assert.equal((await ok(second.client, 'get_run', { run_id: runId })).status, 'completed');
    assert.equal(bridge.app.sessions.size, 1);
  } finally {
    await second.client.close();
  }
});

test('a second bridge on the same Redis serves a session the first one opened', async () => {
  const replica = await startBridgeHttp(options);
  const { client, transport } = await connect(bridge.mcpUrl);
  try {
    const { run_id: runId } = await ok(client, 'start_story', { topic: 'two lighthouses' });
    const elsewhere = await connect(replica.mcpUrl, { sessionId: transport.sessionId as string });
    try {
      assert.equal((await ok(elsewhere.client, 'wait_for_run', { run_id: runId, timeout_s: 60 })).status, 'completed');
      assert.equal((await ok(client, 'get_run', { run_id: runId })).status, 'completed');
    } finally {
      await elsewhere.client.close();
    }
  } finally {
    await client.close();
    await replica.close();
  }
});

test('with an authorization server configured, the protected-resource metadata is served and named in the challenge', async () => {
  const prefix = uniquePrefix('mcp-oauth');
  const guarded = await startBridgeHttp({ ...options, prefix, authorizationServers: ['https://auth.example.com'], publicUrl: 'https://bridge.example.com' });
  try {
    const metadata = (await (await fetch(`${guarded.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    assert.deepEqual(metadata, { resource: 'https://bridge.example.com/mcp', authorization_servers: ['https://auth.example.com'], bearer_methods_supported: ['header'], resource_name: 'Switchyard MCP bridge' });
    const refused = await fetch(guarded.mcpUrl, { method: 'POST' });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /resource_metadata="https:\/\/bridge\.example\.com\/\.well-known\/oauth-protected-resource\/mcp"/);
  } finally {
    await guarded.close();
  }
  assert.equal((await fetch(`${bridge.url}/.well-known/oauth-protected-resource/mcp`)).status, 404, 'none is served without one');
});
