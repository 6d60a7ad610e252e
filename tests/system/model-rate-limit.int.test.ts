/**
 * A model's rate limit is one budget for every worker of the deployment (issue #42, item 4): agent
 * runs spread over two worker processes, at the default concurrency, against the offline model set
 * to admit only so many requests per window. No run fails, and the model never sees more requests
 * in a window than its limit. And a 429 with Retry-After pauses the model for every worker for
 * that long, rather than each turn retrying on its own. Prints what the model saw.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { freePort } from '@switchyard/redis';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

/** What the model admits in the first test: 4 requests per 2 s window, declared to the workers as 120 a minute. */
const LIMIT = { requests: 4, windowMs: 2000 };
const RUNS = 20;
const BATCH_TIMEOUT_MS = 180_000;

let stack: TestStack;
const workers = new WorkerProcesses(() => stack);
before(async () => {
  stack = await startTestStack({ label: 'model-rate-limit', inProcessWorkers: false });
});
beforeEach(async () => {
  await workers.killAll();
  stack.tools.model.faults.rateLimit = null;
  stack.tools.model.faults.failNext = 0;
  stack.tools.model.faults.retryAfterMs = 0;
});
after(async () => {
  await workers.killAll();
  await stack.close();
});

/** The most arrivals in any one of the model's fixed windows (as its knob counts them), and in any window of that length at all. */
function busiestWindows(arrivals: readonly { at: number }[], windowMs: number): { fixed: number; sliding: number } {
  const byWindow = new Map<number, number>();
  for (const { at } of arrivals) byWindow.set(Math.floor(at / windowMs), (byWindow.get(Math.floor(at / windowMs)) ?? 0) + 1);
  const times = arrivals.map((a) => a.at).sort((a, b) => a - b);
  let sliding = 0;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j += 1;
    sliding = Math.max(sliding, i - j + 1);
  }
  return { fixed: Math.max(0, ...byWindow.values()), sliding };
}

async function submitBatch(count: number, topic: string): Promise<string> {
  const items = Array.from({ length: count }, (_, i) => ({ topic: `${topic} ${i}` }));
  const accepted = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'research-agent', items }) });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  return accepted.body.batch_id;
}

async function batchCounts(batchId: string): Promise<Record<string, number>> {
  const batch = await waitFor(
    async () => (await stack.json<{ status: string; counts: Record<string, number> }>(`/v1/batches/${batchId}?limit=1`)).body,
    (view) => view.status === 'done',
    'the batch has ended',
    BATCH_TIMEOUT_MS,
  );
  return batch.counts;
}

async function metricValue(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'gm'))) total += Number(match[1]);
  return total;
}

test('agent runs on two worker processes complete, and the model never sees more requests per window than its limit', { timeout: BATCH_TIMEOUT_MS + 120_000 }, async () => {
  const model = stack.tools.model;
  const perMinute = String((LIMIT.requests * 60_000) / LIMIT.windowMs);
  const env = { MODEL_SERVICE_URL: model.baseUrl, LLM_REQUESTS_PER_MINUTE: perMinute };
  await Promise.all([workers.startListening(env), workers.startListening(env)]);
  // Deployed workers are warm: a fresh process's first requests reach the model a few hundred ms
  // after their place (its first use of LangChain's code), which is not what this test measures.
  assert.equal((await batchCounts(await submitBatch(4, 'warming up, question'))).completed, 4);
  // The knob counts the window a request arrives in: the limit starts in a window the warm-up left empty.
  const lastWarm = model.stats.rateLimit.arrivals.at(-1)?.at ?? 0;
  await waitFor(async () => Date.now(), (now) => Math.floor(now / LIMIT.windowMs) > Math.floor(lastWarm / LIMIT.windowMs), 'the warm-up\'s window has passed');
  model.faults.rateLimit = LIMIT;
  const seenBefore = model.stats.rateLimit.arrivals.length;
  const started = performance.now();

  const counts = await batchCounts(await submitBatch(RUNS, 'tide pools, question'));

  const seconds = (performance.now() - started) / 1000;
  const arrivals = model.stats.rateLimit.arrivals.slice(seenBefore);
  const busiest = busiestWindows(arrivals, LIMIT.windowMs);
  const refused = arrivals.filter((a) => !a.admitted).length;
  const boundSeconds = (arrivals.length * LIMIT.windowMs) / LIMIT.requests / 1000;
  process.stdout.write(`# ${JSON.stringify({ runs: RUNS, requests: arrivals.length, refused, busiest_fixed_window: busiest.fixed, busiest_sliding_window: busiest.sliding, limit: LIMIT, seconds: Math.round(seconds * 10) / 10, bound_seconds: boundSeconds })}\n`);
  if (busiest.fixed > LIMIT.requests) process.stdout.write(`# arrivals (ms after the first): ${JSON.stringify(arrivals.map((a) => a.at - (arrivals[0]?.at ?? 0)))}\n`);
  assert.deepEqual(counts, { queued: 0, running: 0, waiting: 0, completed: RUNS, failed: 0, cancelled: 0 }, 'every run completed');
  assert.ok(busiest.fixed <= LIMIT.requests, `at most ${LIMIT.requests} requests in any of the model's windows (saw ${busiest.fixed})`);
  assert.equal(refused, 0, 'the model refused no request');
  assert.ok(arrivals.length >= RUNS * 2, 'every run asked the model at least twice');
});

test('a 429 with Retry-After pauses the model for every worker for that long', { timeout: 180_000 }, async () => {
  const model = stack.tools.model;
  const ports = [await freePort(), await freePort()];
  const env = { MODEL_SERVICE_URL: model.baseUrl };
  await Promise.all(ports.map((port) => workers.startListening({ ...env, METRICS_PORT: String(port) })));
  const retryAfterMs = 4000;
  model.faults.failNext = 1;
  model.faults.retryAfterMs = retryAfterMs;
  const seenBefore = model.stats.rateLimit.arrivals.length;

  // One run meets the 429 first; a batch starts on both workers while the model is paused.
  const first = await stack.json<{ run_id: string }>('/v1/pipelines/research-agent/runs', { method: 'POST', body: JSON.stringify({ topic: 'kelp forests' }) });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  const refusedAt = (await waitFor(async () => model.stats.rateLimit.arrivals.slice(seenBefore), (seen) => seen.length >= 1, 'the model has been asked', 60_000))[0]?.at as number;
  const batchId = await submitBatch(10, 'sea otters, question');
  const submittedAfterMs = Date.now() - refusedAt;
  assert.ok(submittedAfterMs < retryAfterMs - 2000, `the batch was submitted while the model was paused (${submittedAfterMs} ms after the 429)`);
  const counts = await batchCounts(batchId);
  const firstRun = await stack.waitForRun(first.body.run_id, 60_000);

  const later = model.stats.rateLimit.arrivals.slice(seenBefore + 1);
  const soonest = Math.min(...later.map((a) => a.at)) - refusedAt;
  const perWorker = await Promise.all(ports.map((port) => metricValue(port, 'switchyard_model_rate_limited_total')));
  process.stdout.write(`# ${JSON.stringify({ retry_after_ms: retryAfterMs, next_request_after_ms: soonest, requests_after: later.length, rate_limited_by_worker: perWorker })}\n`);
  assert.equal(firstRun.status, 'completed', JSON.stringify(firstRun.error));
  assert.deepEqual(counts, { queued: 0, running: 0, waiting: 0, completed: 10, failed: 0, cancelled: 0 }, 'every run completed');
  // Redis's clock and this process's are the machine's: a few ms of rounding at most.
  assert.ok(soonest >= retryAfterMs - 50, `no worker asked the model before its Retry-After ended (the next request came ${soonest} ms after the 429)`);
  assert.equal(perWorker.reduce((a, b) => a + b, 0), 1, 'one 429 was counted, by model');
});
