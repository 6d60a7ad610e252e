/**
 * Guessing keys: wrong keys are counted per client address (loopback gives each test an address
 * of its own, 127.0.0.x), and past the limit the address is answered 429 with Retry-After,
 * whatever it sends, while the right key from another address still works and the process goes
 * on answering. The count is shared by every orchestrator on the same Redis.
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

test(`POST /ui/session: ${LIMIT} wrong keys from an address, then 429 with Retry-After even for the right key, while the right key from another address opens a session`, async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-ui'));
  for (let i = 0; i < LIMIT; i += 1) assert.equal((await openSession(api, '127.0.0.2', `wrong-${i}`)).status, 401, `guess ${i + 1}`);
  assertRefused(await openSession(api, '127.0.0.2', `wrong-${LIMIT}`), 'a further guess');
  assertRefused(await openSession(api, '127.0.0.2', KEY), 'the right key from the guessing address');
  assertRefused(await readRuns(api, '127.0.0.2', KEY), 'the API from the guessing address');
  assert.equal((await openSession(api, '127.0.0.1', KEY)).status, 204, 'the right key from another address');
  assert.equal((await readRuns(api, '127.0.0.1', KEY)).status, 200);
});

test('the API: wrong bearer keys past the limit are refused 429 with Retry-After, the right key from another address still reads', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-v1'));
  for (let i = 0; i < LIMIT; i += 1) assert.equal((await readRuns(api, '127.0.0.3', `wrong-${i}`)).status, 401, `guess ${i + 1}`);
  assertRefused(await readRuns(api, '127.0.0.3', KEY), 'the right key from the guessing address');
  assertRefused(await openSession(api, '127.0.0.3', KEY), 'the dashboard from the guessing address');
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
  assertRefused(await openSession(second, '127.0.0.5', KEY), 'the dashboard of the other orchestrator asks Redis first');
  // The API of the other orchestrator learns of it at the address's next wrong key, and refuses from then on.
  assertRefused(await readRuns(second, '127.0.0.5', 'wrong-again'), 'a wrong key at the other orchestrator');
  assertRefused(await readRuns(second, '127.0.0.5', KEY), 'then even the right key');
});

test('when the window has passed, the address may present keys again', async () => {
  const api = await orchestrator(uniquePrefix('key-guesses-window'), { failedKeys: { limit: 2, windowMs: 1200 } });
  for (let i = 0; i < 2; i += 1) assert.equal((await openSession(api, '127.0.0.6', `wrong-${i}`)).status, 401);
  const refused = await openSession(api, '127.0.0.6', KEY);
  assert.equal(refused.status, 429);
  assert.ok(['1', '2'].includes(refused.retryAfter ?? ''), `what is left of 1.2 s, rounded up: ${refused.retryAfter}`);
  const deadline = Date.now() + 5000;
  let reply = refused;
  while (reply.status === 429) {
    assert.ok(Date.now() < deadline, 'the refusal ended with its window');
    await new Promise((resolve) => setTimeout(resolve, 100));
    reply = await openSession(api, '127.0.0.6', KEY);
  }
  assert.equal(reply.status, 204, 'the right key opens a session again');
  assert.equal((await readRuns(api, '127.0.0.6', KEY)).status, 200, 'and the API, once this process finds the refusal over');
});
