/**
 * The client against a whole Switchyard on loopback (orchestrator, workers, tool services, real
 * Redis): registering and running a pipeline, following its events and resuming them, cancelling,
 * a batch and its events, and each kind of failure as the error a caller handles.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { REPO_ROOT } from '@switchyard/redis';
import { createSwitchyardClient, type SwitchyardClient } from './client.js';
import { ApiError, ApiUnreachable, EventsUnavailable } from './errors.js';
import type { RunEvent, RunView } from './types.js';

const SECTION_REVIEW = readFileSync(path.join(REPO_ROOT, 'docs', 'pipelines', 'section-review.yaml'), 'utf8');

let stack: TestStack;
let client: SwitchyardClient;
before(async () => {
  stack = await startTestStack({ label: 'client' });
  client = createSwitchyardClient({ url: stack.api.url, key: TEST_API_KEY });
  await client.registerPipeline('section-review', { text: SECTION_REVIEW, format: 'yaml' });
});
after(() => stack.close());

test('a YAML definition is registered as written, and again as unchanged', async () => {
  const again = await client.registerPipeline('section-review', { text: SECTION_REVIEW, format: 'yaml' });
  assert.deepEqual(again, { name: 'section-review', version: 1, outcome: 'unchanged' });
  const list = await client.listPipelines();
  assert.ok(list.pipelines.some((p) => p.name === 'section-review' && p.latest === 1));
  const view = await client.getPipeline('section-review');
  assert.deepEqual(Object.keys(view.definition.steps).sort(), ['outline', 'review', 'summary']);
});

test("a run's events are followed to done, and a follow broken off resumes from its last id with nothing twice", async () => {
  const accepted = await client.startRun('section-review', { topic: 'a tide clock' });
  assert.deepEqual(accepted.pipeline, { name: 'section-review', version: 1 });

  // Break the first follow off after its first event, as a dropped connection would.
  const first: RunEvent[] = [];
  const stop = new AbortController();
  await assert.rejects(
    client.followRun(accepted.run_id, (event) => {
      first.push(event);
      stop.abort(new Error('broken off'));
    }, { signal: stop.signal }),
    /broken off/,
  );
  assert.equal(first.length, 1);

  const rest: RunEvent[] = [];
  const { lastEventId } = await client.followRun(accepted.run_id, (event) => rest.push(event), { lastEventId: first[0]?.id });
  const all = [...first, ...rest];
  assert.equal(all.at(-1)?.event, 'done');
  assert.equal(lastEventId, all.at(-1)?.id);
  assert.equal(new Set(all.map((e) => e.id)).size, all.length, 'no event seen twice');
  const everything: RunEvent[] = [];
  await client.followRun(accepted.run_id, (event) => everything.push(event));
  assert.deepEqual(all.map((e) => e.id), everything.map((e) => e.id), 'the resumed follow saw exactly what one whole follow sees');

  const run = await client.getRun(accepted.run_id);
  assert.equal(run.status, 'completed');
  assert.equal((run.result as { title?: unknown }).title, (all.at(-1)?.data as { result?: { title?: unknown } }).result?.title);
  const listed = await client.listRuns({ pipeline: 'section-review', limit: 5 });
  assert.ok(listed.runs.some((r) => r.run_id === accepted.run_id));
});

test('a run is cancelled while its writers stream, its events end in done: cancelled, and a finished run cannot be', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 100;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const live = await client.startRun('story', { topic: 'a lantern that keeps time' });
  const events: RunEvent[] = [];
  let cancelling: Promise<RunView> | undefined;
  await client.followRun(live.run_id, (event) => {
    events.push(event);
    if (event.event === 'content') cancelling ??= client.cancelRun(live.run_id);
  }, { signal: AbortSignal.timeout(20_000) });
  assert.equal((await cancelling)?.status, 'cancelled');
  const done = events.at(-1);
  assert.equal(done?.event === 'done' ? done.data.status : undefined, 'cancelled');
  assert.equal((await client.getRun(live.run_id)).status, 'cancelled');

  // A run of this test's own, followed to its end: no test relies on another's runs.
  const finished = await client.startRun('section-review', { topic: 'a bell that rang once' });
  await client.followRun(finished.run_id, () => undefined, { signal: AbortSignal.timeout(30_000) });
  assert.equal((await client.getRun(finished.run_id)).status, 'completed');
  await assert.rejects(client.cancelRun(finished.run_id), (error: unknown) => error instanceof ApiError && error.status === 409 && error.code === 'run_finished');
});

test("a batch of a pipeline's inputs runs, its events tell each run's end, and its view counts them", async () => {
  const batch = await client.startBatch({ pipeline: 'section-review', items: [{ topic: 'a mill' }, { topic: 'a ferry' }] });
  assert.equal(batch.total, 2);
  const ended: string[] = [];
  await client.followBatch(batch.batch_id, (event) => {
    if (event.event === 'run') ended.push(event.data.run_id);
  });
  assert.deepEqual([...ended].sort(), [...batch.run_ids].sort());
  const view = await client.getBatch(batch.batch_id);
  assert.equal(view.status, 'done');
  assert.equal(view.counts.completed, 2);
  const list = await client.listBatches({ limit: 5 });
  assert.ok(list.batches.some((b) => b.batch_id === batch.batch_id && b.pipeline === 'section-review'));
});

test("refusals come back as ApiError with the API's code and message", async () => {
  await assert.rejects(client.getRun('run_00000000000000000000000000000000'), (error: unknown) => error instanceof ApiError && error.status === 404 && error.code === 'run_not_found' && error.call === 'GET /v1/runs/run_00000000000000000000000000000000');
  const wrongKey = createSwitchyardClient({ url: stack.api.url, key: 'not-the-key' });
  await assert.rejects(wrongKey.listPipelines(), (error: unknown) => error instanceof ApiError && error.status === 401);
  await assert.rejects(client.startRun('section-review', { audience: 'x' }), (error: unknown) => error instanceof ApiError && error.status === 400 && /topic/.test(error.message));
  const invalid = await client.registerPipeline('broken', { text: 'name: broken\nsteps:\n  a:\n    tool: no_such_tool\n', format: 'yaml' }).catch((e: unknown) => e);
  assert.ok(invalid instanceof ApiError && invalid.status === 400 && invalid.code === 'invalid_pipeline', String(invalid));
  assert.ok(Array.isArray(invalid.details.problems));
  await assert.rejects(client.followRun('run_00000000000000000000000000000000', () => undefined), (error: unknown) => error instanceof EventsUnavailable && error.status === 404);
});

test('deleting a pipeline: deleted when the API has the route, else its 405 as an ApiError', async () => {
  await client.registerPipeline('to-delete', { text: SECTION_REVIEW.replace('name: section-review', 'name: to-delete'), format: 'yaml' });
  const hasRoute = 'delete' in ((await (await fetch(`${stack.api.url}/openapi.json`)).json()) as { paths: Record<string, object> }).paths['/v1/pipelines/{name}']!;
  if (hasRoute) {
    await client.deletePipeline('to-delete');
    await assert.rejects(client.getPipeline('to-delete'), (error: unknown) => error instanceof ApiError && error.status === 404);
  } else {
    await assert.rejects(client.deletePipeline('to-delete'), (error: unknown) => error instanceof ApiError && error.status === 405 && error.call === 'DELETE /v1/pipelines/to-delete');
  }
});

test('an API that cannot be reached, or does not answer within the budget, is ApiUnreachable', async () => {
  const { createServer } = await import('node:http');
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const freePort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  const closed = createSwitchyardClient({ url: `http://127.0.0.1:${freePort}`, key: 'k' });
  await assert.rejects(closed.listRuns(), (error: unknown) => error instanceof ApiUnreachable && /connection refused/.test(error.message));
  const silent = createServer(() => undefined); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  const started = Date.now();
  await assert.rejects(createSwitchyardClient({ url: `http://127.0.0.1:${port}`, timeoutMs: 300 }).listRuns(), (error: unknown) => error instanceof ApiUnreachable && /no answer within 0.3 s/.test(error.message));
  assert.ok(Date.now() - started < 3000);
  silent.closeAllConnections();
  silent.close();
});
