/**
 * The per-service slowness knobs over real HTTP: a writer whose chunks are spread over a
 * duration, an async task that takes a given time, a latency for one service only.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AsyncAccepted, TaskStatus } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor } from './authors/offline/index.js';
import { loadEnv, serviceFaults } from './env.js';
import { startToolServices, type ToolServicesStack } from './stack.js';

const STREAM_MS = 600;
const TASK_MS = 500;
const LATENCY_MS = 300;
let stack: ToolServicesStack;

before(async () => {
  const env = loadEnv({ FAULT_SEARCH_LATENCY_MS: String(LATENCY_MS), FAULT_WRITING_STREAM_MS: String(STREAM_MS), FAULT_EDITING_TASK_MS: String(TASK_MS) });
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), faultsByService: serviceFaults(env) });
});
after(() => stack.close());

const post = (service: keyof ToolServicesStack['services'], path: string, body: unknown) =>
  fetch(`${stack.services[service].url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

test('a writer with FAULT_WRITING_STREAM_MS spreads its chunks over that long', async () => {
  const started = performance.now();
  const res = await post('writing', '/run/write_story_section?stream=true', { section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] } });
  const arrivals: number[] = [];
  const decoder = new TextDecoder();
  let text = '';
  for await (const part of res.body as AsyncIterable<Uint8Array>) {
    const before = (text.match(/^event: content$/gm) ?? []).length;
    text += decoder.decode(part, { stream: true });
    const now = (text.match(/^event: content$/gm) ?? []).length;
    for (let i = before; i < now; i += 1) arrivals.push(performance.now() - started);
  }
  assert.match(text, /^event: done$/m);
  assert.ok(arrivals.length > 5, `${arrivals.length} chunks`);
  // Evenly spread: the first chunk waits its share, the last comes at the full duration.
  assert.ok((arrivals[0] ?? 0) >= STREAM_MS / arrivals.length - 5, `first chunk at ${arrivals[0]} ms`);
  assert.ok((arrivals.at(-1) ?? 0) >= STREAM_MS - 5, `last chunk at ${arrivals.at(-1)} ms`);
});

test('an async task with FAULT_EDITING_TASK_MS is processing until that long has passed', async () => {
  const started = performance.now();
  const res = await post('editing', '/run/polish_story?async=true', { draft: 'The lamp failed. The keeper climbed.' });
  assert.equal(res.status, 202);
  const accepted = AsyncAccepted.parse(await res.json());
  const poll = async () => TaskStatus.parse(await (await fetch(`${stack.services.editing.url}${accepted.poll_url}`)).json());
  const first = await poll();
  // Unless the machine stalled past the task's time between the 202 and this poll.
  if (performance.now() - started < TASK_MS) assert.equal(first.status, 'processing');
  let last = first;
  while (last.status === 'processing') {
    await new Promise((r) => setTimeout(r, 50));
    last = await poll();
  }
  assert.equal(last.status, 'completed');
  assert.ok(performance.now() - started >= TASK_MS - 5);
});

test('FAULT_SEARCH_LATENCY_MS slows the search service alone', async () => {
  const timed = async (service: 'search', path: string, body: unknown) => {
    const started = performance.now();
    const res = await post(service, path, body);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    return performance.now() - started;
  };
  assert.ok((await timed('search', '/run/search_relevant_information', { topic: 'tide clocks' })) >= LATENCY_MS - 5);
  assert.equal(stack.services.outline.faults.latencyMs, 0);
  assert.equal(stack.services.search.faults.latencyMs, LATENCY_MS);
});
