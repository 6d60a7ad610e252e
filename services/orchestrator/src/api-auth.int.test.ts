/**
 * Who may call the orchestrator, what /health says, and what DELETE does to a run that has
 * already ended. Refused requests write nothing: no workers run on this stack, so every key
 * under its prefix is one a request made.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readSse } from './testing/events.js';
import { KeyWatch, readError } from './testing/rejections.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

let stack: TestStack;
let watch: KeyWatch;
let runId: string;
let batchId: string;
before(async () => {
  // Every refusal below comes from one address: more wrong keys than the default limit lets through.
  stack = await startTestStack({ label: 'api-auth', inProcessWorkers: false, failedKeys: { limit: 1000 } });
  watch = new KeyWatch(stack);
  runId = (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lighthouse keeper' }) })).body.run_id;
  batchId = (await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'one' }, { topic: 'two' }] }) })).body.batch_id;
  await watch.settled();
});
after(async () => {
  await watch.close();
  await stack.close();
});

interface Endpoint {
  method: string;
  path: () => string;
  body?: unknown;
  /** What a request with a good key gets. */
  ok: number;
}

const endpoints: Endpoint[] = [
  { method: 'POST', path: () => '/v1/stories', body: { topic: 'a clockmaker' }, ok: 202 },
  { method: 'GET', path: () => `/v1/runs/${runId}`, ok: 200 },
  { method: 'GET', path: () => `/v1/runs/${runId}/events`, ok: 200 },
  { method: 'GET', path: () => '/v1/runs', ok: 200 },
  { method: 'POST', path: () => '/v1/batches', body: { items: [{ topic: 'three' }] }, ok: 202 },
  { method: 'GET', path: () => `/v1/batches/${batchId}`, ok: 200 },
  { method: 'GET', path: () => `/v1/batches/${batchId}/events`, ok: 200 },
  // Last, since a good key cancels the run.
  { method: 'DELETE', path: () => `/v1/runs/${runId}`, ok: 200 },
];

/** Fetches without the test key unless `headers` carry one. */
function send(endpoint: Endpoint, headers: Record<string, string>): Promise<Response> {
  const body = endpoint.body === undefined ? undefined : JSON.stringify(endpoint.body);
  return fetch(`${stack.api.url}${endpoint.path()}`, { method: endpoint.method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body });
}

const refusals: { what: string; headers: Record<string, string>; message: RegExp }[] = [
  { what: 'a request with no key', headers: {}, message: /API key is required \(X-API-Key or Authorization: Bearer\)/ },
  { what: 'a wrong Bearer key', headers: { authorization: 'Bearer not-the-key' }, message: /not valid/ },
  { what: 'a wrong X-API-Key', headers: { 'x-api-key': 'not-the-key' }, message: /not valid/ },
  { what: 'the key with a character more', headers: { 'x-api-key': `${TEST_API_KEY}0` }, message: /not valid/ },
  { what: 'the key less its last character', headers: { authorization: `Bearer ${TEST_API_KEY.slice(0, -1)}` }, message: /not valid/ },
  { what: 'the key under the Basic scheme', headers: { authorization: `Basic ${Buffer.from(`x:${TEST_API_KEY}`).toString('base64')}` }, message: /required/ },
  { what: 'an empty Bearer token', headers: { authorization: 'Bearer ' }, message: /required/ },
  { what: 'a wrong X-API-Key next to a good Bearer key', headers: { 'x-api-key': 'not-the-key', authorization: `Bearer ${TEST_API_KEY}` }, message: /not valid/ },
];

for (const refusal of refusals) {
  test(`every /v1 endpoint refuses ${refusal.what} with 401 and a Bearer challenge, writing nothing`, async () => {
    for (const endpoint of endpoints) {
      const label = `${endpoint.method} ${endpoint.path()}`;
      const { status, headers, error } = await watch.refused(() => send(endpoint, refusal.headers));
      assert.equal(status, 401, label);
      assert.equal(error.code, 'unauthorized', label);
      assert.match(error.message, refusal.message, label);
      assert.equal(headers.get('www-authenticate'), 'Bearer realm="switchyard"', label);
    }
  });
}

test('an unauthenticated POST is refused before its body is read: invalid JSON or too large, it is still a 401', async () => {
  for (const body of ['{"topic": ', JSON.stringify({ topic: 'a'.repeat(70 * 1024) })]) {
    for (const path of ['/v1/stories', '/v1/batches']) {
      const { status } = await watch.refused(() => fetch(`${stack.api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
      assert.equal(status, 401, path);
    }
  }
});

test('an unknown /v1 route asks for a key before it says there is no such route', async () => {
  const { status } = await watch.refused(() => fetch(`${stack.api.url}/v1/nothing-here`));
  assert.equal(status, 401);
});

for (const [what, header] of [
  ['X-API-Key', (key: string) => ({ 'x-api-key': key })],
  ['a lower-case "bearer" scheme', (key: string) => ({ authorization: `bearer ${key}` })],
] as const) {
  test(`every /v1 endpoint accepts the key in ${what}`, async () => {
    for (const endpoint of endpoints.filter((e) => what === 'X-API-Key' || e.method === 'GET')) {
      const res = await send(endpoint, header(TEST_API_KEY));
      assert.equal(res.status, endpoint.ok, `${endpoint.method} ${endpoint.path()}`);
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
      else await res.arrayBuffer();
    }
  });
}

test('/health needs no key and answers 200 healthy when Redis and all four tool services are up, writing nothing', async () => {
  const before = await watch.keys();
  for (const headers of [{}, { 'x-api-key': 'not-the-key' }] as Record<string, string>[]) {
    const res = await fetch(`${stack.api.url}/health`, { headers });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { status: string; redis: { healthy: boolean }; services: Record<string, { healthy: boolean; url: string }> };
    assert.equal(body.status, 'healthy');
    assert.equal(body.redis.healthy, true);
    assert.deepEqual(Object.keys(body.services).sort(), ['editing', 'outline', 'search', 'writing']);
    for (const [name, service] of Object.entries(body.services)) {
      assert.equal(service.healthy, true, name);
      assert.equal(service.url, stack.toolConfig.services[name as keyof typeof stack.toolConfig.services].url);
    }
  }
  assert.deepEqual([...(await watch.keys())].filter((k) => !before.has(k)), []);
});

test('/health answers 503 degraded, naming the service, while one tool service is unhealthy, and 200 once it recovers', async (t) => {
  const faults = stack.tools.services.editing.faults;
  faults.unhealthy = true;
  t.after(() => (faults.unhealthy = false));
  const degraded = await stack.json<{ status: string; redis: { healthy: boolean }; services: Record<string, { healthy: boolean; error?: string }> }>('/health');
  assert.equal(degraded.status, 503);
  assert.equal(degraded.body.status, 'degraded');
  assert.equal(degraded.body.redis.healthy, true);
  assert.equal(degraded.body.services.editing?.healthy, false);
  assert.match(degraded.body.services.editing?.error ?? '', /503/);
  for (const name of ['search', 'outline', 'writing']) assert.equal(degraded.body.services[name]?.healthy, true, name);

  faults.unhealthy = false;
  const recovered = await stack.json<{ status: string }>('/health');
  assert.equal(recovered.status, 200);
  assert.equal(recovered.body.status, 'healthy');
});

test('cancelling a run twice answers 200 with status cancelled both times, and ends it only once', async () => {
  const created = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a ferryman' }) });
  const path = `/v1/runs/${created.body.run_id}`;
  const first = await stack.json<{ status: string; run_id: string }>(path, { method: 'DELETE' });
  assert.equal(first.status, 200);
  assert.equal(first.body.status, 'cancelled');
  const keys = await watch.keys();
  const state = (await stack.json(path)).body;
  const second = await stack.json<{ status: string; run_id: string }>(path, { method: 'DELETE' });
  assert.equal(second.status, 200);
  assert.equal(second.body.status, 'cancelled');
  assert.equal(second.body.run_id, created.body.run_id);
  assert.deepEqual((await stack.json(path)).body, state, 'the second cancel changed nothing');
  assert.deepEqual([...(await watch.keys())].filter((k) => !keys.has(k)), []);
  const done = (await readSse(await stack.request(`${path}/events`))).filter((e) => e.event === 'done');
  assert.deepEqual(done.map((e) => JSON.parse(e.data).status), ['cancelled']);
});

test('cancelling a run that has completed answers 409 run_finished and leaves it completed', async (t) => {
  const live = await startTestStack({ label: 'api-auth-finished' });
  t.after(() => live.close());
  const created = await live.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a glassblower' }) });
  const path = `/v1/runs/${created.body.run_id}`;
  const finished = await live.waitForRun(created.body.run_id);
  assert.equal(finished.status, 'completed');

  const refused = await readError(await live.request(path, { method: 'DELETE' }));
  assert.equal(refused.status, 409);
  assert.equal(refused.error.code, 'run_finished');
  assert.match(refused.error.message, /already completed/);
  assert.deepEqual(refused.error.details, { status: 'completed' });

  assert.deepEqual((await live.json(path)).body, finished, 'the run is as it was: completed, same result, same updated_at');
  const done = (await readSse(await live.request(`${path}/events`))).filter((e) => e.event === 'done');
  assert.deepEqual(done.map((e) => JSON.parse(e.data).status), ['completed']);
});
