/**
 * The model client's own retries against the scripted model over real HTTP: 500s at a seeded
 * rate, 429 with Retry-After (measured at the server), final 4xx, a deadline per attempt, and a
 * model that is not there at all.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { ModelCallError } from './errors.js';
import type { ChatMessage } from './messages.js';
import { ModelClient, type ModelClientOptions, type ModelTurnEvent } from './model-client.js';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from './testing/scripted-model.js';

let model: ScriptedModel;
let next: (n: number) => ScriptStep = () => ({ content: 'ok' });

before(async () => {
  model = await startScriptedModel({ script: (_request, n) => next(n) });
});
after(() => model.close());
beforeEach(() => {
  model.requests.length = 0;
  model.tokenDelayMs = 0;
});

const clientFor = (options: Partial<ModelClientOptions> = {}, baseUrl = model.baseUrl) =>
  new ModelClient({ models: new Map([['default', { name: 'default', baseUrl, model: 'scripted-1' }]]), baseBackoffMs: 5, maxBackoffMs: 50, ...options });
const ASK: ChatMessage[] = [{ role: 'user', content: 'Tell me about tides' }];
const turnOf = (client: ModelClient, extra: { onRetry?: (info: { attempt: number; delayMs: number; error: ModelCallError }) => void; signal?: AbortSignal } = {}) =>
  client.turn({ model: 'default', messages: ASK, tools: [], signal: extra.signal ?? new AbortController().signal, ...(extra.onRetry ? { onRetry: extra.onRetry } : {}) });

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelCallError, `expected a ModelCallError, got ${String(error)}`);
    return error;
  }
  assert.fail('the turn was expected to fail');
}

/** mulberry32: a small seeded generator, so "30 % fail" is the same 30 % every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('with 30 % of requests answering 500 (seeded), 40 turns all succeed through retries', async () => {
  const random = seeded(34);
  next = () => (random() < 0.3 ? { status: 500 } : { content: 'The tide turns.' });
  const events: ModelTurnEvent[] = [];
  const client = clientFor({ maxAttempts: 6, observer: { onTurn: (event) => events.push(event) }, random: seeded(7) });
  const attempts: number[] = [];
  let retries = 0;
  for (let turn = 0; turn < 40; turn += 1) {
    const reply = await turnOf(client, { onRetry: () => (retries += 1) });
    assert.equal(reply.content, 'The tide turns.');
    attempts.push(reply.attempts);
  }
  const failures = model.counters.failures;
  console.log(`40 turns, ${model.requests.length} requests, ${retries} retries; attempts per turn: ${attempts.join(' ')}`);
  assert.ok(retries >= 5, `the seeded rate made failures to retry (${retries})`);
  assert.equal(model.requests.length, 40 + retries);
  assert.equal(attempts.reduce((a, b) => a + b, 0), 40 + retries);
  assert.ok(failures >= retries);
  assert.ok(events.every((event) => event.outcome === 'ok') && events.length === 40);
});

test('a 429 with Retry-After of 1 s is asked again no sooner than 1 s later, measured at the model', async () => {
  const firstOfTest = model.counters.requests;
  next = (n) => (n === firstOfTest ? { status: 429, retryAfterMs: 1000 } : { content: 'Now then.' });
  const delays: number[] = [];
  const reply = await turnOf(clientFor(), { onRetry: (info) => delays.push(info.delayMs) });
  const [first, second] = model.requests;
  assert.ok(first && second);
  const gapMs = second.receivedAt - first.receivedAt;
  console.log(`429 Retry-After 1 s: asked again ${gapMs.toFixed(0)} ms later`);
  assert.ok(gapMs >= 1000, `asked again after ${gapMs} ms`);
  assert.equal(reply.attempts, 2);
  assert.deepEqual(delays, [1000]);
});

test('a Retry-After longer than the longest allowed fails the turn at once, saying what was asked', async () => {
  next = () => ({ status: 429, retryAfterMs: 30_000 });
  const started = performance.now();
  const error = await rejection(turnOf(clientFor({ maxRetryAfterMs: 5000 })));
  assert.ok(performance.now() - started < 1000);
  assert.equal(error.code, 'model_rate_limited');
  assert.equal(error.retryAfterMs, 30_000);
  assert.match(error.message, /asked to wait 30000 ms, more than the 5000 ms allowed/);
  assert.equal(model.requests.length, 1);
});

test('a turn cancelled while it waits out a Retry-After rejects with model_cancelled at once', async () => {
  next = () => ({ status: 429, retryAfterMs: 5000 });
  const abort = new AbortController();
  const turn = turnOf(clientFor(), { signal: abort.signal, onRetry: () => setImmediate(() => abort.abort()) });
  const started = performance.now();
  const error = await rejection(turn);
  assert.equal(error.code, 'model_cancelled');
  assert.ok(performance.now() - started < 1000);
  assert.equal(model.requests.length, 1);
});

test('a stream that ends early, with no finish_reason, is not taken for a reply: the turn is asked again', async () => {
  const firstOfTest = model.counters.requests;
  next = (n) => ({ content: 'one two three four five six seven', ...(n === firstOfTest ? { endAfterChunks: 3 } : {}) });
  const retried: string[] = [];
  const reply = await turnOf(clientFor(), { onRetry: (info) => retried.push(info.error.message) });
  assert.equal(reply.content, 'one two three four five six seven');
  assert.equal(reply.attempts, 2);
  assert.match(retried[0] ?? '', /the stream ended before the reply did/);
});

test('a 400 is not retried: model_refused, with its status', async () => {
  next = () => ({ status: 400 });
  const error = await rejection(turnOf(clientFor()));
  assert.equal(error.code, 'model_refused');
  assert.equal(error.status, 400);
  assert.equal(error.retryable, false);
  assert.equal(model.requests.length, 1);
});

test('503s past the last attempt fail with model_unavailable after maxAttempts requests', async () => {
  next = () => ({ status: 503 });
  const events: ModelTurnEvent[] = [];
  const error = await rejection(turnOf(clientFor({ maxAttempts: 3, observer: { onTurn: (event) => events.push(event) } })));
  assert.equal(error.code, 'model_unavailable');
  assert.equal(error.status, 503);
  assert.equal(model.requests.length, 3);
  assert.deepEqual([events[0]?.outcome, events[0]?.attempts], ['model_unavailable', 3]);
});

test('an attempt that does not finish within timeoutMs is cut, its stream closed, and tried again', async () => {
  next = () => ({ content: Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ') });
  model.tokenDelayMs = 50;
  const abandoned = model.counters.streamsAbandoned;
  const error = await rejection(turnOf(clientFor({ timeoutMs: 200, maxAttempts: 2 })));
  assert.equal(error.code, 'model_unavailable');
  assert.match(error.message, /no whole reply within 200 ms/);
  assert.equal(model.requests.length, 2);
  const deadline = Date.now() + 3000;
  while (model.counters.streamsAbandoned < abandoned + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(model.counters.streamsAbandoned, abandoned + 2, 'both timed-out streams were closed');
});

test('a model nobody listens at is retried as unavailable, then fails with model_unavailable', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const retried: string[] = [];
  const error = await rejection(turnOf(clientFor({ maxAttempts: 2 }, `http://127.0.0.1:${port}/v1`), { onRetry: (info) => retried.push(info.error.code) }));
  assert.equal(error.code, 'model_unavailable');
  assert.equal(error.status, undefined);
  assert.deepEqual(retried, ['model_unavailable']);
});
