/**
 * Hostile and broken input at every JSON endpoint, the orchestrator's and the reference tool
 * services': every answer is a 4xx with `{error:{code,message,details}}` (details an object), and
 * nothing reaches Redis.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import { malformedBodies, malformedRunPaths, type MalformedRequest } from './testing/malformed.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'malformed', inProcessWorkers: false });
});
after(() => stack.close());

interface Tally {
  sent: number;
  byStatus: Record<string, number>;
  problems: string[];
}

async function send(url: string, request: MalformedRequest, headers: Record<string, string>, tally: Tally, method = 'POST'): Promise<void> {
  const res = await fetch(url, { method, headers: { ...headers, ...request.headers }, body: request.body as RequestInit["body"] });
  const text = await res.text();
  tally.sent += 1;
  tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
  if (res.status < 400 || res.status >= 500) {
    tally.problems.push(`${request.name} → ${res.status}: ${text.slice(0, 200)}`);
    return;
  }
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    tally.problems.push(`${request.name} → ${res.status} with a body that is not JSON: ${text.slice(0, 100)}`);
    return;
  }
  const error = body.error;
  const shaped = error && typeof error.code === 'string' && typeof error.message === 'string' && error.details !== null && typeof error.details === 'object';
  if (!shaped) tally.problems.push(`${request.name} → ${res.status} without the error shape: ${text.slice(0, 200)}`);
  if (text.length > 64 * 1024) tally.problems.push(`${request.name} → an error body of ${text.length} bytes`);
}

async function redisFootprint(): Promise<{ keys: number }> {
  const redis = createRedisClient(stack.redisUrl);
  const keys = (await scanKeys(redis, keyspace(stack.prefix).pattern)).length;
  await redis.quit();
  return { keys };
}

/** The footprint once the orchestrator's own start-up writes (its queue's meta) have landed. */
async function settledFootprint(): Promise<{ keys: number }> {
  let last = await redisFootprint();
  for (let i = 0; i < 50; i += 1) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await redisFootprint();
    if (now.keys === last.keys) return now;
    last = now;
  }
  return last;
}

test('malformed bodies at every orchestrator endpoint answer 4xx with the error shape and write nothing', async () => {
  assert.equal((await stack.request('/v1/runs?limit=1')).status, 200);
  const before = await settledFootprint();
  const tally: Tally = { sent: 0, byStatus: {}, problems: [] };
  const auth = { authorization: `Bearer ${TEST_API_KEY}` };
  for (const path of ['/v1/stories', '/v1/batches', '/v1/aceflow/runs']) {
    for (const request of malformedBodies()) await send(`${stack.api.url}${path}`, request, auth, tally);
  }
  for (const path of malformedRunPaths) {
    for (const method of ['GET', 'DELETE']) await send(`${stack.api.url}${path}`, { name: `${method} ${path.slice(0, 60)}`, headers: {}, body: undefined }, auth, tally, method);
  }
  const afterwards = await redisFootprint();
  process.stdout.write(`# orchestrator, malformed requests: ${JSON.stringify({ sent: tally.sent, by_status: tally.byStatus, redis_keys_before: before.keys, redis_keys_after: afterwards.keys })}\n`);
  assert.deepEqual(tally.problems, []);
  assert.ok(tally.sent >= 120);
  assert.deepEqual(afterwards, before, 'nothing was written to Redis');
});

test('malformed bodies at every reference tool service answer 4xx with the error shape', async () => {
  const tally: Tally = { sent: 0, byStatus: {}, problems: [] };
  const auth = { authorization: `Bearer ${stack.toolConfig.apiKey ?? ''}` };
  const tools = { search: 'search_relevant_information', outline: 'generate_structured_outline', writing: 'write_story_section', editing: 'polish_story' } as const;
  for (const [key, tool] of Object.entries(tools)) {
    const url = `${stack.tools.services[key as keyof typeof tools].url}/run/${tool}`;
    for (const request of malformedBodies()) await send(url, request, auth, tally);
  }
  process.stdout.write(`# tool services, malformed requests: ${JSON.stringify({ sent: tally.sent, by_status: tally.byStatus })}\n`);
  assert.deepEqual(tally.problems, []);
  assert.ok(tally.sent >= 160);
});
