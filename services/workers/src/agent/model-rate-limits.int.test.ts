/**
 * Every model's budget in Redis (model-rate-limits.ts), as several workers share it: requests take
 * places one interval apart whoever asks, a reserved place is kept, a 429 pauses the model for
 * everyone, and tokens spent past a minute's worth hold requests back. Each test names its own
 * model, under the file's own prefix; on a cluster each model's key has a slot of its own.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { ModelCallError, ModelRateLimitWait, type ModelConfig } from '@switchyard/models';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { ModelRateLimits, SPACING } from './model-rate-limits.js';

let redis: Redis;
let other: Redis;
const prefix = uniquePrefix('model-rate');
before(async () => {
  const { url } = await testRedis();
  redis = createRedisClient(url);
  other = createRedisClient(url);
});
after(() => {
  redis.disconnect();
  other.disconnect();
});

const modelNamed = (name: string, limits?: ModelConfig['limits']): ModelConfig => ({ name, baseUrl: 'http://127.0.0.1:9/v1', model: name, ...(limits ? { limits } : {}) });
const signal = new AbortController().signal;

/** What `admit` decided: 'now', or the wait (and slot) it refused with. */
async function decision(gate: ModelRateLimits, model: ModelConfig, slot?: number): Promise<'now' | { waitMs: number; slot: number | undefined }> {
  try {
    await gate.admit(model, { signal, slot });
    return 'now';
  } catch (error) {
    assert.ok(error instanceof ModelRateLimitWait, `expected a wait, got ${String(error)}`);
    return { waitMs: error.waitMs, slot: error.slot };
  }
}

test('two workers sharing a model limited to 6 requests a minute get places 10.5 s apart, in the order they asked', async () => {
  const model = modelNamed('paced', { requestsPerMinute: 6 });
  const interval = (60_000 / 6) * SPACING;
  const workerA = new ModelRateLimits({ redis, prefix, holdMs: 0 });
  const workerB = new ModelRateLimits({ redis: other, prefix, holdMs: 0 });
  assert.equal(await decision(workerA, model), 'now');
  const second = await decision(workerB, model);
  const third = await decision(workerA, model);
  assert.ok(second !== 'now' && third !== 'now');
  assert.ok(Math.abs(second.waitMs - interval) < 200, `the second waits one interval (${second.waitMs} ms)`);
  assert.ok(Math.abs(third.waitMs - 2 * interval) < 200, `the third waits two (${third.waitMs} ms)`);
  assert.ok(second.slot !== undefined && third.slot !== undefined && Math.abs(third.slot - second.slot - interval) < 2);
});

test('a turn coming back with its reserved place keeps it, rather than queueing again behind later ones', async () => {
  const model = modelNamed('reserved', { requestsPerMinute: 6 });
  const gate = new ModelRateLimits({ redis, prefix, holdMs: 0 });
  await decision(gate, model);
  const waiting = await decision(gate, model);
  assert.ok(waiting !== 'now' && waiting.slot !== undefined);
  await decision(gate, model);
  const back = await decision(gate, model, waiting.slot);
  assert.ok(back !== 'now' && back.slot === waiting.slot, 'its own place, not one after the others');
  assert.ok(back.waitMs <= waiting.waitMs);
});

test('a 429 pauses the model for every worker for its Retry-After, and a model with no limits declared too', async () => {
  const model = modelNamed('refusing');
  const workerA = new ModelRateLimits({ redis, prefix, holdMs: 0 });
  const workerB = new ModelRateLimits({ redis: other, prefix, holdMs: 0 });
  assert.equal(await decision(workerB, model), 'now');
  await workerA.limited(model, new ModelCallError({ code: 'model_rate_limited', message: '429', status: 429, retryAfterMs: 30_000 }));
  const paused = await decision(workerB, model);
  assert.ok(paused !== 'now' && paused.waitMs > 29_000 && paused.waitMs <= 30_000, `the other worker waits out the pause (${JSON.stringify(paused)})`);
});

test('tokens spent past a minute of the model\'s tokens_per_minute hold its next request back until they are paid off', async () => {
  const model = modelNamed('tokens', { tokensPerMinute: 1000 });
  const gate = new ModelRateLimits({ redis, prefix, holdMs: 0 });
  assert.equal(await decision(gate, model), 'now');
  await gate.spent(model, 900);
  assert.equal(await decision(gate, model), 'now', 'within a minute\'s tokens');
  await gate.spent(model, 600);
  const held = await decision(gate, model);
  // 1500 tokens spent against 1000 a minute: 500 over, paid off in 30 s.
  assert.ok(held !== 'now' && held.waitMs > 29_000 && held.waitMs <= 30_000, JSON.stringify(held));
});

test('a short wait is spent in place, and each model\'s budget has a key of its own that expires', async () => {
  const model = modelNamed('short', { requestsPerMinute: 600_000 });
  const gate = new ModelRateLimits({ redis, prefix });
  for (let i = 0; i < 5; i += 1) assert.equal(await decision(gate, model), 'now');
  const ttl = await redis.pttl(gate.key('short'));
  assert.ok(ttl > 0 && ttl <= 121_000, `the key expires (${ttl} ms)`);
  assert.match(gate.key('short'), /^\{[^}]+:model-rate:short\}$/, 'a hash tag of its own: models spread over the slots');
});
