/**
 * Real responses of a running stack, checked against the OpenAPI document it serves: each
 * status must be documented for its operation, each body must match the documented schema, and
 * each event of a stream the stream's documented event schema.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ResponseChecker } from '../testing/openapi-check.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';
import { waitFor } from '../testing/worker-processes.js';

let stack: TestStack;
let checker: ResponseChecker;

before(async () => {
  stack = await startTestStack({ label: 'openapi-responses' });
  checker = new ResponseChecker(await (await fetch(`${stack.api.url}/openapi.json`)).json());
});
after(() => stack.close());

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers });

test('a started story answers 202 as documented, and its run, the run list and its events match the document', async () => {
  const started = (await checker.check({ method: 'post', path: '/v1/stories' }, await stack.request('/v1/stories', post({ topic: 'a tide clock', style: 'concise' })), 202)) as { run_id: string };
  await stack.waitForRun(started.run_id);
  const run = (await checker.check({ method: 'get', path: '/v1/runs/{runId}' }, await stack.request(`/v1/runs/${started.run_id}`), 200)) as { status: string };
  assert.equal(run.status, 'completed');
  await checker.check({ method: 'get', path: '/v1/runs' }, await stack.request('/v1/runs?limit=5&status=completed'));
  const withFields = (await checker.check({ method: 'get', path: '/v1/runs' }, await stack.request('/v1/runs?limit=5&fields=request,result,stages,error'))) as { runs: { run_id: string; result: unknown }[] };
  assert.deepEqual(withFields.runs.find((listed) => listed.run_id === started.run_id)?.result, (run as { result?: unknown }).result, 'a listing with fields gives the result as the run does');
  const events = await checker.checkEvents({ method: 'get', path: '/v1/runs/{runId}/events' }, await stack.request(`/v1/runs/${started.run_id}/events`));
  assert.deepEqual([...new Set(events.map((e) => e.event))].sort(), ['content', 'done', 'stage']);
});

test('cancelling a run answers the run as documented, and cancelling a completed one a documented 409', async () => {
  const cancelled = (await stack.json<{ run_id: string }>('/v1/stories', post({ topic: 'a kite that will not land' }))).body;
  const view = (await checker.check({ method: 'delete', path: '/v1/runs/{runId}' }, await stack.request(`/v1/runs/${cancelled.run_id}`, { method: 'DELETE' }), 200)) as { status: string };
  assert.equal(view.status, 'cancelled');
  const completed = (await stack.json<{ run_id: string }>('/v1/stories', post({ topic: 'a kite that lands' }))).body;
  assert.equal((await stack.waitForRun(completed.run_id)).status, 'completed');
  await checker.check({ method: 'delete', path: '/v1/runs/{runId}' }, await stack.request(`/v1/runs/${completed.run_id}`, { method: 'DELETE' }), 409);
});

test('a batch answers 202, its view and its events as documented', async () => {
  const accepted = (await checker.check({ method: 'post', path: '/v1/batches' }, await stack.request('/v1/batches', post({ items: [{ topic: 'a mill' }, { topic: 'a ferry' }], defaults: { style: 'concise' } })), 202)) as { batch_id: string };
  const events = await checker.checkEvents({ method: 'get', path: '/v1/batches/{batchId}/events' }, await stack.request(`/v1/batches/${accepted.batch_id}/events`));
  assert.deepEqual(events.map((e) => e.event), ['run', 'run', 'done']);
  const view = (await checker.check({ method: 'get', path: '/v1/batches/{batchId}' }, await stack.request(`/v1/batches/${accepted.batch_id}?limit=1`))) as { status: string };
  assert.equal(view.status, 'done');
});

test('a pipeline registered, read, listed and run answers as documented, its stored definition included', async () => {
  const definition = {
    name: 'openapi-check',
    description: 'Searches, with a timeout and a backoff written as durations',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' }, timeout: '30s', retry: { attempts: 2, backoff: '1s' } } },
  };
  const put = () => stack.request('/v1/pipelines/openapi-check', { method: 'PUT', body: JSON.stringify(definition) });
  await checker.check({ method: 'put', path: '/v1/pipelines/{name}' }, await put(), 201);
  await checker.check({ method: 'put', path: '/v1/pipelines/{name}' }, await put(), 200);
  await checker.check({ method: 'get', path: '/v1/pipelines/{name}' }, await stack.request('/v1/pipelines/openapi-check'));
  await checker.check({ method: 'get', path: '/v1/pipelines/{name}' }, await stack.request('/v1/pipelines/story'));
  await checker.check({ method: 'get', path: '/v1/pipelines' }, await stack.request('/v1/pipelines'));
  await checker.check({ method: 'get', path: '/v1/pipelines' }, await stack.request('/v1/pipelines?limit=1'));
  const run = (await checker.check({ method: 'post', path: '/v1/pipelines/{name}/runs' }, await stack.request('/v1/pipelines/openapi-check/runs?version=1', post({ topic: 'a canal' })), 202)) as { run_id: string };
  await stack.waitForRun(run.run_id);
});

test('deleting a version and a pipeline answers as documented, refusals included', async () => {
  const put = (description: string) => stack.request('/v1/pipelines/openapi-delete', { method: 'PUT', body: JSON.stringify({ name: 'openapi-delete', description, steps: { find: { tool: 'search_relevant_information', args: { topic: "'x'" } } } }) });
  await checker.check({ method: 'put', path: '/v1/pipelines/{name}' }, await put('first'), 201);
  await checker.check({ method: 'put', path: '/v1/pipelines/{name}' }, await put('second'), 201);
  const version = { method: 'delete', path: '/v1/pipelines/{name}/versions/{version}' };
  await checker.check(version, await stack.request('/v1/pipelines/openapi-delete/versions/2', { method: 'DELETE' }));
  await checker.check(version, await stack.request('/v1/pipelines/openapi-delete/versions/2', { method: 'DELETE' }), 404);
  const story = (await (await stack.request('/v1/pipelines/story')).json()) as { latest: number };
  await checker.check(version, await stack.request(`/v1/pipelines/story/versions/${story.latest}`, { method: 'DELETE' }), 409);
  const pipeline = { method: 'delete', path: '/v1/pipelines/{name}' };
  await checker.check(pipeline, await stack.request('/v1/pipelines/openapi-delete', { method: 'DELETE' }));
  await checker.check(pipeline, await stack.request('/v1/pipelines/openapi-delete', { method: 'DELETE' }), 404);
  await checker.check(pipeline, await stack.request('/v1/pipelines/story', { method: 'DELETE' }), 409);
});

test('an AceFlow run answers 202 as documented', async () => {
  await checker.check({ method: 'post', path: '/v1/aceflow/runs' }, await stack.request('/v1/aceflow/runs', post({ project: { name: 'openapi-check', mode: 'minimal' }, to_stage: 's1_user_story' })), 202);
});

test('the public routes answer as documented: health, the pipeline format, the document itself', async () => {
  for (const path of ['/health', '/schemas/pipeline.json', '/openapi.json']) await checker.check({ method: 'get', path }, await fetch(`${stack.api.url}${path}`));
});

test('refusals answer documented statuses with the documented error body: 400, 401, 404, 409, 413, 415', async () => {
  const stories = { method: 'post', path: '/v1/stories' };
  const json = { 'content-type': 'application/json' };
  await checker.check(stories, await stack.request('/v1/stories', post({ topic: 'x', colour: 'blue' })), 400);
  await checker.check(stories, await stack.request('/v1/stories', { method: 'POST', body: '{"topic": ', headers: json }), 400);
  await checker.check(stories, await fetch(`${stack.api.url}/v1/stories`, { method: 'POST', body: '{}', headers: json }), 401);
  await checker.check(stories, await fetch(`${stack.api.url}/v1/stories`, { method: 'POST', body: '{}', headers: { ...json, authorization: `Bearer ${TEST_API_KEY}x` } }), 401);
  await checker.check(stories, await stack.request('/v1/stories', post({ topic: 'a'.repeat(70 * 1024) })), 413);
  await checker.check(stories, await stack.request('/v1/stories', { method: 'POST', body: 'topic=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
  await checker.check(stories, await stack.request('/v1/stories', { method: 'POST', body: '{}', headers: { ...json, 'content-encoding': 'zstd-ish' } }), 415);
  const key = { 'idempotency-key': `openapi-${Date.now()}` };
  await checker.check(stories, await stack.request('/v1/stories', post({ topic: 'a first body' }, key)), 202);
  await checker.check(stories, await stack.request('/v1/stories', post({ topic: 'another body' }, key)), 409);
  await checker.check(stories, await stack.request('/v1/stories', post({ topic: 'a body' }, { 'idempotency-key': 'has spaces' })), 400);
  await checker.check({ method: 'get', path: '/v1/runs/{runId}' }, await stack.request('/v1/runs/run_00000000000000000000000000000000'), 404);
  await checker.check({ method: 'get', path: '/v1/runs' }, await stack.request('/v1/runs?status=sleeping'), 400);
  await checker.check({ method: 'get', path: '/v1/batches/{batchId}' }, await stack.request('/v1/batches/not-a-batch'), 404);
  await checker.check({ method: 'put', path: '/v1/pipelines/{name}' }, await stack.request('/v1/pipelines/broken', { method: 'PUT', body: JSON.stringify({ steps: {} }) }), 400);
  await checker.check({ method: 'post', path: '/v1/pipelines/{name}/runs' }, await stack.request('/v1/pipelines/no-such-pipeline/runs', post({})), 404);
});

test('the inbox, a signal (refused, recorded, duplicate, too late) and an unknown approval answer as documented', async () => {
  const definition = { name: 'openapi-gate', steps: { gate: { wait: { signal: 'go', schema: { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } } } } }, output: 'steps.gate' };
  assert.equal((await stack.request('/v1/pipelines/openapi-gate', { method: 'PUT', body: JSON.stringify(definition) })).status, 201);
  const { run_id: runId } = (await stack.json<{ run_id: string }>('/v1/pipelines/openapi-gate/runs', post({}))).body;
  const listed = async () => (await stack.json<{ items: unknown[] }>(`/v1/inbox?run_id=${runId}`)).body.items.length;
  await waitFor(listed, (count) => count > 0, 'the run waits in the inbox');
  const page = (await checker.check({ method: 'get', path: '/v1/inbox' }, await stack.request('/v1/inbox?pipeline=openapi-gate&limit=10'), 200)) as { items: { kind: string }[] };
  assert.equal(page.items[0]?.kind, 'signal');
  const signal = { method: 'post', path: '/v1/runs/{runId}/signals/{name}' } as const;
  await checker.check(signal, await stack.request(`/v1/runs/${runId}/signals/go`, post({ ok: 'yes' })), 400);
  await checker.check({ method: 'post', path: '/v1/runs/{runId}/approvals/{callId}' }, await stack.request(`/v1/runs/${runId}/approvals/call_1`, post({ approve: true })), 404);
  await checker.check(signal, await stack.request(`/v1/runs/${runId}/signals/go`, post({ ok: true }, { 'Idempotency-Key': 'first' })), 202);
  await checker.check(signal, await stack.request(`/v1/runs/${runId}/signals/go`, post({ ok: false })), 200);
  assert.equal((await stack.waitForRun(runId)).status, 'completed');
  await checker.check(signal, await stack.request(`/v1/runs/${runId}/signals/go`, post({ ok: true })), 409);
});
