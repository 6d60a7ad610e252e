/**
 * A tool service's `/metrics` over real HTTP: public, in the text format, and counting each
 * `POST /run/{tool}` by tool, mode and how it was answered, injected faults included.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { sampleSum, scrape } from '@switchyard/metrics/testing';
import { createOfflineAuthor } from './authors/offline/index.js';
import { startToolServices, type ToolServicesStack } from './stack.js';

const KEY = 'svc-metrics-key';
let stack: ToolServicesStack;

before(async () => {
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: [KEY] });
});
after(() => stack.close());

const section = { section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] } };
const run = (query: string, body: unknown = section) =>
  fetch(`${stack.services.writing.url}/run/write_story_section${query}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': KEY }, body: JSON.stringify(body) });
const counted = async (labels: Record<string, string>) => sampleSum(await scrape(stack.services.writing.url), 'switchyard_tool_requests_total', { service: 'writing', tool: 'write_story_section', ...labels });

test('each request is counted by mode and outcome: ok, rejected (4xx), failed (5xx), aborted (a cut stream)', async (t) => {
  const { faults } = stack.services.writing;
  t.after(() => Object.assign(faults, { failNext: 0, streamCutAfterChunks: null }));
  assert.equal((await run('')).status, 200);
  assert.equal((await run('?stream=true').then((res) => res.text())).includes('event: done'), true);
  assert.equal((await run('', { outline: {} })).status, 400);
  faults.failNext = 1;
  assert.equal((await run('')).status, 503);
  faults.streamCutAfterChunks = 1;
  await run('?stream=true').then((res) => res.text().catch(() => ''));
  // The service counts a cut stream when its side of the connection has closed.
  for (const deadline = Date.now() + 5000; (await counted({ mode: 'stream', outcome: 'aborted' })) < 1 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));

  assert.equal(await counted({ mode: 'sync', outcome: 'ok' }), 1);
  assert.equal(await counted({ mode: 'stream', outcome: 'ok' }), 1);
  assert.equal(await counted({ mode: 'sync', outcome: 'rejected' }), 1);
  assert.equal(await counted({ mode: 'sync', outcome: 'failed' }), 1);
  assert.equal(await counted({ mode: 'stream', outcome: 'aborted' }), 1);
  const families = await scrape(stack.services.writing.url);
  assert.equal(sampleSum(families, 'switchyard_tool_request_duration_seconds_count', { service: 'writing', mode: 'sync' }), 3);
});

test('/metrics needs no key, and each service answers for its own requests only', async () => {
  const res = await fetch(`${stack.services.search.url}/metrics`);
  assert.equal(res.status, 200);
  const search = await scrape(stack.services.search.url);
  assert.equal(sampleSum(search, 'switchyard_tool_requests_total', { service: 'writing' }), 0);
  assert.ok(search.has('process_cpu_seconds_total'));
});
