/**
 * Guessing keys: wrong keys are counted per client address (loopback gives each test an address
 * of its own, 127.0.0.x), and past the limit the address's wrong keys are answered 429 with
 * Retry-After, while the right key, from that address or another, still works (behind a proxy one
 * client's guesses must not lock out everyone) and the process goes on answering. The count is
 * shared by every orchestrator on the same Redis. With TRUST_PROXY, the client is the one the
 * trusted proxy names in X-Forwarded-For; without it the header changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseToolServicesEnv } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { testRedis, uniquePrefix } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator, type StartOrchestratorOptions } from './server.js';
import { sendFrom, type AddressedReply } from './testing/from-address.js';

const KEY = 'key-guesses-right-0123';
const LIMIT = 10;
let redisUrl: string;
const started: RunningOrchestrator[] = [];

before(async () => {
  redisUrl = (await testRedis()).url;
});
after(async () => {
  await Promise.all(started.map((api) => api.close()));
});

async function orchestrator(prefix: string, options: Partial<StartOrchestratorOptions> = {}): Promise<RunningOrchestrator> {
  const api = await startOrchestrator({ redisUrl, prefix, apiKeys: [KEY], toolServices: parseToolServicesEnv({}), logger: createLogger({ name: 'test', level: 'silent' }), ...options });
  started.push(api);
  return api;
}

type Reply = AddressedReply;
const send = sendFrom;

const openSession = (api: RunningOrchestrator, from: string, key: string) => send(api.url, '/ui/session', { from, method: 'POST', body: { key } });
const readRuns = (api: RunningOrchestrator, from: string, key: string) => send(api.url, '/v1/runs', { from, headers: { authorization: `Bearer ${key}` } });

function assertRefused(reply: Reply, label: string): void {
  assert.equal(reply.status, 429, label);
  assert.equal(reply.body.error?.code, 'too_many_failed_keys', label);
  const seconds = Number(reply.retryAfter);
  assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `${label}: Retry-After ${reply.retryAfter}`);
  assert.equal(reply.body.error?.details?.retry_after_s, seconds);
}

test(`POST /ui/session: ${LIMIT} wrong keys from an address, then 429 with Retry-After for its wrong keys, while the right key from that address opens a session`, async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-ui'));
  for (let i = 0; i < LIMIT; i += 1) assert.equal((await openSession(api, '127.0.0.2', `wrong-${i}`)).status, 401, `guess ${i + 1}`);
  assertRefused(await openSession(api, '127.0.0.2', `wrong-${LIMIT}`), 'a further guess');
  assertRefused(await readRuns(api, '127.0.0.2', `wrong-${LIMIT + 1}`), 'a guess at the API from the guessing address');
  assert.equal((await openSession(api, '127.0.0.2', KEY)).status, 204, 'the right key from the guessing address');
  assert.equal((await readRuns(api, '127.0.0.2', KEY)).status, 200, 'the API with the right key from the guessing address');
  assert.equal((await openSession(api, '127.0.0.1', KEY)).status, 204, 'the right key from another address');
});

test('the API and Bull Board: wrong bearer keys past the limit are refused 429 with Retry-After, and the right key still reads, from that address and others', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-v1'));
  for (let i = 0; i < LIMIT; i += 1) assert.equal((await readRuns(api, '127.0.0.3', `wrong-${i}`)).status, 401, `guess ${i + 1}`);
  assertRefused(await readRuns(api, '127.0.0.3', 'wrong-again'), 'a further guess');
  assert.equal((await readRuns(api, '127.0.0.3', KEY)).status, 200, 'the right key from the guessing address');
  assert.equal((await openSession(api, '127.0.0.3', KEY)).status, 204, 'the dashboard from the guessing address');
  assert.equal((await send(api.url, '/admin/queues/', { from: '127.0.0.3', headers: { authorization: `Bearer ${KEY}` } })).status, 200, 'Bull Board from the guessing address');
  assertRefused(await send(api.url, '/admin/queues/', { from: '127.0.0.3', headers: { authorization: 'Bearer wrong-board' } }), 'a guess at Bull Board');
  assert.equal((await readRuns(api, '127.0.0.1', KEY)).status, 200);
});

test('a burst of 300 guesses at once gets exactly the limit of 401s and 429s for the rest, while the process answers others meanwhile', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-burst'));
  const burst = Promise.all(Array.from({ length: 300 }, (_, i) => readRuns(api, '127.0.0.4', `burst-${i}`)));
  const meanwhile = Date.now();
  const health = await send(api.url, '/health', { from: '127.0.0.1' });
  const answeredIn = Date.now() - meanwhile;
  assert.ok([200, 503].includes(health.status), `health answered ${health.status}`);
  assert.equal((await readRuns(api, '127.0.0.1', KEY)).status, 200, 'the right key from elsewhere, during the burst');
  const statuses = (await burst).map((reply) => reply.status);
  assert.deepEqual([...new Set(statuses)].sort(), [401, 429]);
  assert.equal(statuses.filter((s) => s === 401).length, LIMIT, 'the count is atomic: no more wrong keys were compared than the limit');
  assert.ok(answeredIn < 5000, `health answered in ${answeredIn} ms`);
});

test('every orchestrator on the same Redis shares the count: guesses at one are refused at another', async () => {
  const prefix = uniquePrefix('key-guesses-shared');
  const [first, second] = [await orchestrator(prefix), await orchestrator(prefix)];
  for (let i = 0; i < LIMIT; i += 1) assert.equal((await readRuns(first, '127.0.0.5', `wrong-${i}`)).status, 401);
  assertRefused(await openSession(second, '127.0.0.5', 'wrong-at-the-door'), 'the dashboard of the other orchestrator asks Redis before counting');
  // The API of the other orchestrator learns of it at the address's next wrong key, and refuses from then on.
  assertRefused(await readRuns(second, '127.0.0.5', 'wrong-again'), 'a wrong key at the other orchestrator');
  assertRefused(await readRuns(second, '127.0.0.5', 'wrong-once-more'), 'and the next, known without asking Redis');
  assert.equal((await readRuns(second, '127.0.0.5', KEY)).status, 200, 'the right key all along');
});

test('when the window has passed, the address may present keys again', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-window'), { failedKeys: { limit: 2, windowMs: 1200 } });
  for (let i = 0; i < 2; i += 1) assert.equal((await openSession(api, '127.0.0.6', `wrong-${i}`)).status, 401);
  const refused = await openSession(api, '127.0.0.6', 'wrong-2');
  assert.equal(refused.status, 429);
  assert.ok(['1', '2'].includes(refused.retryAfter ?? ''), `what is left of 1.2 s, rounded up: ${refused.retryAfter}`);
  const deadline = Date.now() + 5000;
  let reply = refused;
  for (let i = 3; reply.status === 429; i += 1) {
    assert.ok(Date.now() < deadline, 'the refusal ended with its window');
    await new Promise((resolve) => setTimeout(resolve, 300));
    reply = await openSession(api, '127.0.0.6', `wrong-${i}`);
  }
  assert.equal(reply.status, 401, 'a wrong key is compared and counted again');
});

test('with TRUST_PROXY, wrong keys count under the client the proxy names: one client locked out, another behind the same proxy not', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-proxy'), { failedKeys: { limit: 3, trustProxy: ['loopback'] } });
  const via = (client: string, key: string) => send(api.url, '/v1/runs', { from: '127.0.0.9', headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': client } });
  for (let i = 0; i < 3; i += 1) assert.equal((await via('203.0.113.7', `wrong-${i}`)).status, 401);
  assertRefused(await via('203.0.113.7', 'wrong-3'), 'the guessing client');
  assert.equal((await via('203.0.113.8', 'wrong-elsewhere')).status, 401, 'another client behind the same proxy is still only told its key is wrong');
  assert.equal((await via('203.0.113.7', KEY)).status, 200, 'the guessing client with the right key');
});

test('without TRUST_PROXY, X-Forwarded-For changes nothing: a peer cannot spread its guesses over made-up addresses', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-noproxy'), { failedKeys: { limit: 3 } });
  const spoofed = (i: number) => send(api.url, '/v1/runs', { from: '127.0.0.10', headers: { authorization: `Bearer wrong-${i}`, 'x-forwarded-for': `198.51.100.${i}` } });
  for (let i = 0; i < 3; i += 1) assert.equal((await spoofed(i)).status, 401);
  assertRefused(await spoofed(3), 'the fourth guess, whatever address it claims');
});
