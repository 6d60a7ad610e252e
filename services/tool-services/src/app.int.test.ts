/**
 * The reference services over real HTTP on loopback: the seed 004 protocol, its error body,
 * auth, and the fault knobs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AsyncAccepted, ErrorBody, OutlineOutput, RunEnvelope, SearchOutput, TaskStatus, ToolList } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor } from './authors/offline/index.js';
import { startToolServices, type ToolServicesStack } from './stack.js';

const KEY = 'svc-test-key';
let stack: ToolServicesStack;

before(async () => {
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: [KEY] });
});
after(() => stack.close());

const url = (key: keyof ToolServicesStack['services'], path: string) => `${stack.services[key].url}${path}`;
const post = (target: string, body: unknown, headers: Record<string, string> = { 'X-API-Key': KEY }) =>
  fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The body as far as it arrived before the connection closed or broke. */
async function readUntilClosed(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let part = await reader?.read(); part && !part.done; part = await reader?.read()) text += decoder.decode(part.value, { stream: true });
  } catch {
    // the server cut the connection: keep what came before
  }
  return text;
}

test('GET /tools lists each service\'s tool with a JSON Schema of its input', async () => {
  const res = await fetch(url('search', '/tools'), { headers: { Authorization: `Bearer ${KEY}` } });
  const tools = ToolList.parse(await res.json());
  assert.deepEqual(tools.map((t) => t.name), ['search_relevant_information']);
  assert.deepEqual(tools[0]?.inputSchema.required, ['topic']);
  assert.equal((tools[0]?.inputSchema.properties as Record<string, { type: string }>).depth?.type, 'integer');
});

test('a sync run answers {result, metadata} with the seed\'s output shape', async () => {
  const res = await post(url('search', '/run/search_relevant_information'), { topic: 'lighthouse keepers', depth: 2 });
  assert.equal(res.status, 200);
  const envelope = RunEnvelope.parse(await res.json());
  assert.equal(envelope.metadata.status, 'success');
  assert.equal(SearchOutput.parse(envelope.result).results.length, 2);
});

test('a missing parameter answers 400 in the seed\'s error shape, naming it', async () => {
  const res = await post(url('outline', '/run/generate_structured_outline'), { research: [] });
  assert.equal(res.status, 400);
  const body = ErrorBody.parse(await res.json());
  assert.equal(body.error.code, 'invalid_parameters');
  assert.match(body.error.message, /'topic' is required/);
  assert.deepEqual((body.error.details as { missing_parameters: string[] }).missing_parameters, ['topic']);
});

test('malformed JSON answers 400 and an oversized body 413', async () => {
  const bad = await post(url('search', '/run/search_relevant_information'), '{"topic":');
  assert.equal(bad.status, 400);
  assert.equal(ErrorBody.parse(await bad.json()).error.code, 'invalid_json');
  const big = await post(url('editing', '/run/polish_story'), { draft: 'x'.repeat(1_100_000) });
  assert.equal(big.status, 413);
  assert.equal(ErrorBody.parse(await big.json()).error.code, 'payload_too_large');
});

test('an unknown tool or task answers 404', async () => {
  const tool = await post(url('search', '/run/make_coffee'), {});
  assert.equal(tool.status, 404);
  assert.equal(ErrorBody.parse(await tool.json()).error.code, 'tool_not_found');
  const task = await fetch(url('search', '/tasks/nope'), { headers: { 'X-API-Key': KEY } });
  assert.equal(task.status, 404);
});

test('a path that is not valid percent-encoding answers 400, not a server error', async () => {
  for (const target of [url('search', '/run/%E0%A4%A'), url('search', '/tasks/%E0%A4%A')]) {
    const res = target.includes('/run/') ? await post(target, {}) : await fetch(target, { headers: { 'X-API-Key': KEY } });
    assert.equal(res.status, 400, target);
    assert.equal(ErrorBody.parse(await res.json()).error.code, 'invalid_parameters');
  }
});

test('calls without a key or with a wrong key answer 401; /health needs none', async () => {
  const none = await post(url('search', '/run/search_relevant_information'), { topic: 'x' }, {});
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
  const wrong = await post(url('search', '/run/search_relevant_information'), { topic: 'x' }, { Authorization: 'Bearer nope' });
  assert.equal(wrong.status, 401);
  assert.equal(ErrorBody.parse(await wrong.json()).error.code, 'unauthorized');
  assert.equal((await fetch(url('search', '/health'))).status, 200);
});

test('an async run answers a task whose poll gives the same result a sync call would', async (t) => {
  stack.services.outline.faults.asyncPollsNeeded = 2;
  t.after(() => (stack.services.outline.faults.asyncPollsNeeded = 0));
  const body = { topic: 'a lighthouse keeper who collects lost letters', research: [{ title: 'Lost mail', content: 'Dead letter offices' }] };
  const res = await post(url('outline', '/run/generate_structured_outline?async=true'), body);
  assert.equal(res.status, 202);
  const accepted = AsyncAccepted.parse(await res.json());
  assert.equal(accepted.poll_url, `/tasks/${accepted.task_id}`);
  const statuses: string[] = [];
  let last: TaskStatus | undefined;
  while (last?.status !== 'completed') {
    last = TaskStatus.parse(await (await fetch(url('outline', accepted.poll_url), { headers: { 'X-API-Key': KEY } })).json());
    statuses.push(last.status);
    assert.ok(statuses.length < 50);
  }
  assert.deepEqual(statuses.slice(0, 2), ['processing', 'processing']);
  const sync = RunEnvelope.parse(await (await post(url('outline', '/run/generate_structured_outline'), body)).json());
  assert.deepEqual(OutlineOutput.parse(last.result), OutlineOutput.parse(sync.result));
});

test('a stream run sends progress, content chunks and done with the result', async () => {
  const res = await post(url('writing', '/run/write_story_section?stream=true'), {
    section_name: 'development',
    outline: { title: 'The Search', key_points: ['letters point north'], conflict: 'the harbour master wants them burned' },
  });
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await res.text();
  const events = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => ({ event: m[1], data: JSON.parse(m[2] ?? 'null') as Record<string, unknown> }));
  assert.equal(events[0]?.event, 'progress');
  const chunks = events.filter((e) => e.event === 'content').map((e) => e.data.chunk as string);
  const done = events.at(-1);
  assert.equal(done?.event, 'done');
  assert.equal((done?.data.result as { content: string }).content, chunks.join(''));
});

test('fault knobs inject failures with Retry-After, and a cut stream ends without done', async (t) => {
  const faults = stack.services.writing.faults;
  t.after(() => Object.assign(faults, { failNext: 0, retryAfterSeconds: 0, streamCutAfterChunks: null }));
  Object.assign(faults, { failNext: 1, retryAfterSeconds: 2 });
  const section = { section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] } };
  const failed = await post(url('writing', '/run/write_story_section'), section);
  assert.equal(failed.status, 503);
  assert.equal(failed.headers.get('retry-after'), '2');
  assert.equal(ErrorBody.parse(await failed.json()).error.code, 'service_unavailable');

  faults.streamCutAfterChunks = 2;
  const cut = await post(url('writing', '/run/write_story_section?stream=true'), section);
  const text = await readUntilClosed(cut);
  assert.equal([...text.matchAll(/^event: content$/gm)].length, 2);
  assert.doesNotMatch(text, /^event: done$/m);
});

test('a finished async task stays readable for the retention given, then answers 404', async (t) => {
  const retentionMs = 300;
  const short = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }), apiKeys: [KEY], taskRetentionMs: retentionMs });
  t.after(() => short.close());
  const search = (path: string) => `${short.services.search.url}${path}`;
  const start = async () => AsyncAccepted.parse(await (await post(search('/run/search_relevant_information?async=true'), { topic: 'tides' })).json());
  const poll = (task: AsyncAccepted) => fetch(search(task.poll_url), { headers: { 'X-API-Key': KEY } });

  const first = await start();
  while (TaskStatus.parse(await (await poll(first)).json()).status !== 'completed');
  const finishedBy = Date.now();
  assert.equal((await poll(first)).status, 200, 'readable again within its retention');
  while (Date.now() <= finishedBy + retentionMs) await new Promise((resolve) => setImmediate(resolve));
  await start(); // a new task sweeps the expired ones
  assert.equal((await poll(first)).status, 404);
});
