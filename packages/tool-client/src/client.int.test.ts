/**
 * The client against the real reference services on loopback ports: each call mode, the retry
 * and no-retry classes, stream cuts, slow tasks, timeouts, cancellation and the breaker.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor, startToolServices, type ToolServicesStack } from '@switchyard/tool-services';
import { ToolServiceClient, type ToolClientOptions } from './client.js';
import {
  CircuitOpenError,
  ToolAbortedError,
  ToolDeadlineError,
  ToolInputError,
  ToolRejectedError,
  ToolStreamError,
  ToolTimeoutError,
  ToolUnavailableError,
} from './errors.js';
import { recordingFetch } from './testing/recording-fetch.js';

const API_KEY = 'test-key-client';
let stack: ToolServicesStack;

before(async () => {
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: [API_KEY], heartbeatMs: 50 });
});
after(() => stack.close());

/** A client for one reference service, with fast retries so tests stay quick. */
function clientFor(key: keyof ToolServicesStack['services'], options: Partial<ToolClientOptions> = {}) {
  const recorder = recordingFetch();
  const client = new ToolServiceClient({
    service: key,
    baseUrl: stack.services[key].url,
    apiKey: API_KEY,
    timeoutMs: 5000,
    retry: { retries: 3, minDelayMs: 10, maxDelayMs: 50 },
    poll: { initialDelayMs: 10, maxDelayMs: 50 },
    fetch: recorder.fetch,
    ...options,
  });
  return { client, recorder, faults: stack.services[key].faults };
}

const runs = (recorder: ReturnType<typeof recordingFetch>) => recorder.requests.filter((r) => r.url.includes('/run/'));

const sectionArgs = {
  section_name: 'introduction',
  outline: { title: 'Arrival', key_points: ['the keeper finds a letter', 'a storm is coming'], characters: ['Mara Ellison'] },
  style: 'descriptive',
};

test('a sync call returns the search output in the seed shape', async () => {
  const { client } = clientFor('search');
  const result = (await client.call({ tool: 'search_relevant_information', args: { topic: 'lighthouse keepers', depth: 3 } })) as { results: unknown[] };
  assert.equal(result.results.length, 3);
});

test('a stream call hands over chunks as they arrive and they join to the content', async () => {
  const { client } = clientFor('writing');
  const chunks: string[] = [];
  const progress: number[] = [];
  const result = (await client.call({ tool: 'write_story_section', args: sectionArgs, mode: 'stream', onChunk: (c) => chunks.push(c), onProgress: (p) => progress.push(p.completed) })) as { content: string };
  assert.ok(chunks.length > 1);
  assert.equal(chunks.join(''), result.content);
  assert.equal(progress.at(-1), 100);
});

test('an async call polls a slow task until it completes, and reports the task it started', async (t) => {
  const { client, recorder, faults } = clientFor('editing');
  faults.asyncPollsNeeded = 4;
  t.after(() => (faults.asyncPollsNeeded = 0));
  const accepted: string[] = [];
  const result = (await client.call({ tool: 'polish_story', args: { draft: 'The the keeper  climbed the stairs .' }, mode: 'async', onTaskAccepted: (task) => void accepted.push(task.taskId) })) as { polished_content: string };
  assert.equal(accepted.length, 1);
  assert.ok(recorder.requests.filter((r) => r.url.includes(`/tasks/${accepted[0]}`)).length >= 5);
  assert.match(result.polished_content, /keeper/);
});

test('an async call can resume polling a task it started earlier, without starting the work again', async () => {
  const first = clientFor('editing');
  let task: { taskId: string; pollUrl: string } | undefined;
  await first.client.call({ tool: 'polish_story', args: { draft: 'A keeper kept the light.' }, mode: 'async', onTaskAccepted: (accepted) => void (task = accepted) });
  assert.ok(task);
  const second = clientFor('editing');
  const result = (await second.client.call({ tool: 'polish_story', args: { draft: 'A keeper kept the light.' }, mode: 'async', resumeTask: task })) as { polished_content: string };
  assert.equal(runs(second.recorder).length, 0);
  assert.match(result.polished_content, /keeper/);
});

test('transient 503s are retried until the call succeeds', async (t) => {
  const retried: number[] = [];
  const { client, recorder, faults } = clientFor('search', { onRetry: (notice) => retried.push(notice.attempt) });
  faults.failNext = 2;
  t.after(() => (faults.failNext = 0));
  await client.call({ tool: 'search_relevant_information', args: { topic: 'tides' } });
  assert.deepEqual(retried, [1, 2]);
  assert.equal(runs(recorder).length, 3);
});

test('a 500 is retried too, and gives up as ToolUnavailableError when retries run out', async (t) => {
  const { client, recorder, faults } = clientFor('search', { retry: { retries: 2, minDelayMs: 5, maxDelayMs: 10 }, breaker: { minimumCalls: 1000 } });
  faults.failNext = 10;
  faults.failureStatus = 500;
  t.after(() => Object.assign(faults, { failNext: 0, failureStatus: 503 }));
  await assert.rejects(client.call({ tool: 'search_relevant_information', args: { topic: 'tides' } }), (e: unknown) => e instanceof ToolUnavailableError && e.status === 500);
  assert.equal(runs(recorder).length, 3);
});

test('a Retry-After from the service is waited out before the retry', async (t) => {
  const { client, faults } = clientFor('search');
  faults.failNext = 1;
  faults.retryAfterSeconds = 1;
  t.after(() => Object.assign(faults, { failNext: 0, retryAfterSeconds: 0 }));
  const started = performance.now();
  await client.call({ tool: 'search_relevant_information', args: { topic: 'tides' } });
  assert.ok(performance.now() - started >= 950, 'waited at least the second the service asked for');
});

test('a 400 from the service is not retried and carries its code', async () => {
  const { client, recorder } = clientFor('search', { validateInput: false });
  await assert.rejects(client.call({ tool: 'search_relevant_information', args: { depth: 2 } }), (e: unknown) => e instanceof ToolRejectedError && e.status === 400 && e.code === 'invalid_parameters');
  assert.equal(runs(recorder).length, 1);
});

test('a wrong API key is a non-retryable 401', async () => {
  const { client, recorder } = clientFor('search', { apiKey: 'wrong', validateInput: false });
  await assert.rejects(client.call({ tool: 'search_relevant_information', args: { topic: 'x' } }), (e: unknown) => e instanceof ToolRejectedError && e.status === 401);
  assert.equal(runs(recorder).length, 1);
});

test('an unknown tool is a non-retryable 404 when discovery is skipped', async () => {
  const { client, recorder } = clientFor('search', { validateInput: false });
  await assert.rejects(client.call({ tool: 'no_such_tool', args: {} }), (e: unknown) => e instanceof ToolRejectedError && e.status === 404 && e.code === 'tool_not_found');
  assert.equal(runs(recorder).length, 1);
});

test('arguments that break the published inputSchema are refused before any call', async () => {
  const { client, recorder } = clientFor('search');
  await assert.rejects(client.call({ tool: 'search_relevant_information', args: { depth: 'deep' } }), (e: unknown) => e instanceof ToolInputError && /topic/.test(e.message));
  await assert.rejects(client.call({ tool: 'not_published', args: {} }), (e: unknown) => e instanceof ToolInputError && e.code === 'tool_not_found');
  assert.equal(runs(recorder).length, 0);
});

test('discovery is cached between calls', async () => {
  const { client, recorder } = clientFor('search');
  await client.call({ tool: 'search_relevant_information', args: { topic: 'a' } });
  await client.call({ tool: 'search_relevant_information', args: { topic: 'b' } });
  assert.equal(recorder.requests.filter((r) => r.url.endsWith('/tools')).length, 1);
});

test('a stream cut mid-way is retried from the start, with a reset and no duplicated text', async (t) => {
  const { client, recorder, faults } = clientFor('writing');
  faults.streamCutAfterChunks = 3;
  t.after(() => (faults.streamCutAfterChunks = null));
  recorder.onRequest = (r) => {
    // Let the second attempt through whole.
    if (r.url.includes('stream=true') && runs(recorder).length === 2) faults.streamCutAfterChunks = null;
  };
  let received: string[] = [];
  let resets = 0;
  const result = (await client.call({
    tool: 'write_story_section',
    args: sectionArgs,
    mode: 'stream',
    onChunk: (c) => received.push(c),
    onReset: () => ((resets += 1), (received = [])),
  })) as { content: string };
  assert.equal(resets, 1);
  assert.equal(received.join(''), result.content);
  assert.equal(runs(recorder).length, 2);
});

test('a stream cut on every attempt fails as a stream error', async (t) => {
  const { client, faults } = clientFor('writing', { retry: { retries: 1, minDelayMs: 5, maxDelayMs: 5 } });
  faults.streamCutAfterChunks = 2;
  t.after(() => (faults.streamCutAfterChunks = null));
  await assert.rejects(client.call({ tool: 'write_story_section', args: sectionArgs, mode: 'stream' }), (e: unknown) => e instanceof ToolStreamError && e.code === 'stream_interrupted');
});

test('an attempt slower than the timeout fails as a timeout', async (t) => {
  const { client, faults } = clientFor('search', { timeoutMs: 150, retry: { retries: 0 } });
  faults.latencyMs = 1500;
  t.after(() => (faults.latencyMs = 0));
  await client.listTools();
  await assert.rejects(client.call({ tool: 'search_relevant_information', args: { topic: 'slow' } }), ToolTimeoutError);
});

test('an async task still processing at the deadline fails as a deadline error', async (t) => {
  const { client, faults } = clientFor('editing');
  faults.asyncPollsNeeded = 1_000_000;
  t.after(() => (faults.asyncPollsNeeded = 0));
  await assert.rejects(client.call({ tool: 'polish_story', args: { draft: 'Slow.' }, mode: 'async', deadlineMs: 300 }), ToolDeadlineError);
});

/** Retries `call` while the breaker refuses it: the half-open probe is let through only after the open period. */
async function untilCallSucceeds(call: () => Promise<unknown>, deadlineMs = 5000): Promise<void> {
  const until = performance.now() + deadlineMs;
  for (;;) {
    try {
      await call();
      return;
    } catch (error) {
      if (!(error instanceof CircuitOpenError) || performance.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Aborts `controller` once `ready` holds, then measures how long the call takes to settle. */
async function abortWhen(ready: () => boolean, controller: AbortController, call: Promise<unknown>): Promise<number> {
  while (!ready()) await new Promise((r) => setImmediate(r));
  const aborted = performance.now();
  controller.abort();
  await assert.rejects(call, ToolAbortedError);
  return performance.now() - aborted;
}

test('aborting a stream mid-way stops the call within a second', async (t) => {
  const { client, faults } = clientFor('writing');
  faults.chunkDelayMs = 300;
  t.after(() => (faults.chunkDelayMs = 0));
  const controller = new AbortController();
  let chunks = 0;
  const call = client.call({ tool: 'write_story_section', args: sectionArgs, mode: 'stream', signal: controller.signal, onChunk: () => (chunks += 1) });
  assert.ok((await abortWhen(() => chunks >= 1, controller, call)) < 1000);
});

test('aborting while an async task is polled stops the call within a second and cancels the task', async (t) => {
  const { client, recorder, faults } = clientFor('editing', { poll: { initialDelayMs: 5000, maxDelayMs: 5000 } });
  faults.asyncPollsNeeded = 1_000_000;
  t.after(() => (faults.asyncPollsNeeded = 0));
  const controller = new AbortController();
  let accepted = false;
  let taskId = '';
  const call = client.call({ tool: 'polish_story', args: { draft: 'Waiting.' }, mode: 'async', signal: controller.signal, onTaskAccepted: (task) => void ((accepted = true), (taskId = task.taskId)) });
  assert.ok((await abortWhen(() => accepted, controller, call)) < 1000);
  // The service is told to drop the task nobody waits for (fire and forget, so wait for it to be sent).
  const until = performance.now() + 2000;
  while (!recorder.requests.some((r) => r.method === 'DELETE' && r.url.endsWith(`/tasks/${taskId}`)) && performance.now() < until) await new Promise((r) => setImmediate(r));
  assert.ok(recorder.requests.some((r) => r.method === 'DELETE' && r.url.endsWith(`/tasks/${taskId}`)));
});

test('aborting during a retry backoff stops the call within a second', async (t) => {
  const { client, recorder, faults } = clientFor('search', { retry: { retries: 3, minDelayMs: 10_000, maxDelayMs: 10_000 } });
  faults.failNext = 1;
  t.after(() => (faults.failNext = 0));
  const controller = new AbortController();
  const call = client.call({ tool: 'search_relevant_information', args: { topic: 'x' }, signal: controller.signal });
  assert.ok((await abortWhen(() => runs(recorder).length === 1 && faults.failNext === 0, controller, call)) < 1000);
});

test('the breaker opens when most recent calls fail, refuses calls, and closes once a probe succeeds', async (t) => {
  const { client, recorder, faults } = clientFor('outline', { retry: { retries: 0 }, breaker: { failureRatio: 0.5, minimumCalls: 4, windowMs: 10_000, halfOpenAfterMs: 200 } });
  const args = { topic: 'tides', research: [] };
  await client.listTools();
  faults.failureRate = 1;
  t.after(() => (faults.failureRate = 0));
  let failed = 0;
  while (client.breakerState === 'closed' && failed < 10) {
    await assert.rejects(client.call({ tool: 'generate_structured_outline', args }), ToolUnavailableError);
    failed += 1;
  }
  assert.equal(client.breakerState, 'open');
  // The listing counted as one success: the window needed four calls, three of them failed.
  assert.equal(failed, 3);
  const before = runs(recorder).length;
  const refused = await client.call({ tool: 'generate_structured_outline', args }).then(
    () => assert.fail('an open breaker let a call through'),
    (error: unknown) => error,
  );
  assert.ok(refused instanceof CircuitOpenError);
  assert.equal(runs(recorder).length, before, 'an open breaker makes no request');
  assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 1000, `told when to come back: ${refused.retryAfterMs} ms`);
  assert.ok(refused.lastFailure instanceof ToolUnavailableError, 'it carries the service\'s own last error');

  faults.failureRate = 0;
  await untilCallSucceeds(() => client.call({ tool: 'generate_structured_outline', args }));
  assert.equal(client.breakerState, 'closed');
  assert.ok(recorder.requests.some((r) => r.url.endsWith('/health')), 'the probe checked /health first');
});

test('a service failing 30 % of its calls keeps being called: the breaker stays closed and retries absorb the failures', async (t) => {
  const { client, recorder, faults } = clientFor('search', { retry: { retries: 3, minDelayMs: 1, maxDelayMs: 2 } });
  await client.listTools();
  faults.failureRate = 0.3;
  t.after(() => (faults.failureRate = 0));
  const states = new Set<string>();
  client.onBreakerStateChange((state) => states.add(state));
  let succeeded = 0;
  for (let i = 0; i < 100; i++) {
    await client.call({ tool: 'search_relevant_information', args: { topic: `tides ${i}` } }).then(() => (succeeded += 1), () => undefined);
  }
  const sent = runs(recorder).length;
  process.stdout.write(`# 100 calls at 30 % 503s: ${succeeded} succeeded, ${sent} requests sent, breaker states seen: ${[...states].join(',') || 'closed only'}\n`);
  assert.ok(!states.has('open'), 'the breaker never opened');
  // A call fails only when all four of its requests do (0.3⁴ ≈ 0.8 %): about one in a hundred.
  assert.ok(succeeded >= 95, `retries absorbed the failures: ${succeeded}/100`);
  assert.ok(sent > 120, `failures really happened: ${sent} requests`);
});

test('health reports a healthy service and an unhealthy one', async (t) => {
  const { client, faults } = clientFor('search');
  assert.equal((await client.health()).healthy, true);
  faults.unhealthy = true;
  t.after(() => (faults.unhealthy = false));
  assert.equal((await client.health()).healthy, false);
});
