import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import express from 'express';
import { createRedisClient, freePort, testRedis } from '@switchyard/redis';
import type { Redis } from 'ioredis';
import { errorMiddleware } from './errors.js';
import { listen, type Listening } from './listen.js';
import { createProbes, probesRouter, type Probes } from './probes.js';

let redis: Redis;
let gone: Redis;
const servers: Listening[] = [];

before(async () => {
  redis = createRedisClient((await testRedis()).url, { maxRetriesPerRequest: 1 });
  // Connected before the unreachable client reports its outage: the outage state is the process's,
  // and a client still making its first connection during an outage is counted as down.
  await redis.ping();
  // A Redis nobody listens for: what a pod sees while its Redis is unreachable.
  gone = createRedisClient(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 0, retryStrategy: () => 200 });
  gone.on('error', () => undefined);
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  redis.disconnect();
  gone.disconnect();
});

async function serve(probes: Probes): Promise<string> {
  const app = express();
  app.use(probesRouter(probes));
  app.use(errorMiddleware({ error: () => undefined }));
  const listening = await listen(app, { port: 0 });
  servers.push(listening);
  return listening.url;
}

async function get(url: string): Promise<{ status: number; body: { status: string; redis?: { healthy: boolean; error?: string } } }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { status: string } };
}

test('a service that reaches Redis is alive and ready', async () => {
  const url = await serve(createProbes({ redis }));
  assert.deepEqual([(await get(`${url}/livez`)).status, (await get(`${url}/readyz`)).body.status], [200, 'ready']);
  assert.equal((await get(`${url}/readyz`)).status, 200);
});

test('a service whose Redis is unreachable stays alive but is not ready, within a second, saying why', async () => {
  const url = await serve(createProbes({ redis: gone }));
  assert.equal((await get(`${url}/livez`)).status, 200, 'no restart for an outage every pod shares');
  const started = performance.now();
  const ready = await get(`${url}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal(ready.body.status, 'degraded');
  assert.equal(ready.body.redis?.healthy, false);
  assert.ok(performance.now() - started < 1_000, 'answered within a second');
});

test('a draining service is alive and not ready, whatever Redis says', async () => {
  const probes = createProbes({ redis });
  const url = await serve(probes);
  probes.drain();
  assert.equal(probes.draining, true);
  assert.equal((await get(`${url}/livez`)).status, 200);
  const ready = await get(`${url}/readyz`);
  assert.deepEqual([ready.status, ready.body.status], [503, 'draining']);
});

test('a service not serving yet (a worker before its queues listen) is starting, then ready', async () => {
  let serving = false;
  const url = await serve(createProbes({ redis, serving: () => serving }));
  const starting = await get(`${url}/readyz`);
  assert.deepEqual([starting.status, starting.body.status], [503, 'starting']);
  serving = true;
  assert.equal((await get(`${url}/readyz`)).status, 200);
});

test('the probes answer GET only', async () => {
  const url = await serve(createProbes({ redis }));
  const res = await fetch(`${url}/readyz`, { method: 'POST' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'GET');
});
