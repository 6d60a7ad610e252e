/**
 * After RUN_RETENTION_S a run leaves nothing behind: its hash, events, outputs, idempotency key,
 * run index entry, batch keys and BullMQ jobs are all gone, and Redis is back to what it held.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const RETENTION_S = 2;
let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'retention', retentionSeconds: RETENTION_S, retentionPassMs: 300 });
});
after(() => stack.close());

/** BullMQ's own event stream of each queue: bounded by its length (see BULLMQ_EVENTS_MAXLEN), not by age. */
const isQueueEventStream = (key: string) => /:(tool-[a-z0-9-]+|kind-[a-z0-9-]+|run-dispatch):events$/.test(key);

// The ended runs not yet compacted: a list the compactor empties within seconds, whatever ran.
const isTransient = (key: string) => key.endsWith(':lease') || key.endsWith(':stalled-check') || key.endsWith(':runs:ended');

async function footprint(): Promise<{ keys: string[]; bytes: number; queueEventBytes: number; sizes: Record<string, number> }> {
  const redis = createRedisClient(stack.redisUrl);
  const keys = await scanKeys(redis, keyspace(stack.prefix).pattern);
  let bytes = 0;
  let queueEventBytes = 0;
  const sizes: Record<string, number> = {};
  for (const key of keys.filter((k) => !isTransient(k))) {
    const size = (await redis.memory('USAGE', key)) ?? 0;
    sizes[key] = size;
    if (isQueueEventStream(key)) queueEventBytes += size;
    else bytes += size;
  }
  await redis.quit();
  // Leases and BullMQ's stalled-check markers come and go every interval, whatever ran.
  return { keys: keys.filter((k) => !isTransient(k)).sort(), bytes, queueEventBytes, sizes };
}

async function runBatch(size: number, key: string): Promise<void> {
  const items = Array.from({ length: size }, (_, i) => ({ topic: `a tide that goes out ${key} ${i}` }));
  const created = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', headers: { 'Idempotency-Key': key }, body: JSON.stringify({ items }) });
  assert.equal(created.status, 202);
  await readSse(await stack.request(`/v1/batches/${created.body.batch_id}/events`), (e) => e.event === 'done');
}

async function settled(expected: string[], timeoutMs: number): Promise<Awaited<ReturnType<typeof footprint>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await footprint();
    if (JSON.stringify(now.keys) === JSON.stringify(expected) || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('after its retention a batch leaves Redis with the keys it had before, and about the bytes', async () => {
  // A first batch makes the queues' own keys (meta, event streams) that stay with any deployment.
  await runBatch(2, 'warm-up');
  const empty = await footprint();
  // What stays with any deployment: not the warm-up's runs and batch, nor the run and batch indexes,
  // which the janitor empties (and so removes) once those have expired.
  const lasting = (k: string) => !k.includes(':run:') && !k.includes(':batch:') && !k.includes(':idem:') && !k.endsWith(':runs') && !k.endsWith(':batches');
  const before = await settled(empty.keys.filter(lasting), RETENTION_S * 1000 + 15_000);

  await runBatch(10, 'measured');
  const during = await footprint();
  const afterwards = await settled(before.keys, RETENTION_S * 1000 + 15_000);
  const figures = {
    keys_before: before.keys.length,
    bytes_before: before.bytes,
    keys_during: during.keys.length,
    bytes_during: during.bytes,
    keys_after: afterwards.keys.length,
    bytes_after: afterwards.bytes,
    queue_event_stream_bytes: { before: before.queueEventBytes, after: afterwards.queueEventBytes },
  };
  process.stdout.write(`# retention: ${JSON.stringify(figures)}\n`);
  assert.deepEqual(afterwards.keys, before.keys, 'every key the batch made is gone');
  assert.ok(during.keys.length > before.keys.length + 10, 'the batch really made keys');
  const grown = Object.entries(afterwards.sizes).filter(([key, size]) => !isQueueEventStream(key) && size !== before.sizes[key]).map(([key, size]) => `${key.slice(stack.prefix.length)} ${before.sizes[key] ?? 0}→${size}`);
  assert.ok(Math.abs(afterwards.bytes - before.bytes) <= 1024, `bytes back to where they were: ${afterwards.bytes} after, ${before.bytes} before (${grown.join(', ')})`);
});
