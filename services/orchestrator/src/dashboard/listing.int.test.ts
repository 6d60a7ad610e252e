/**
 * What the dashboard lists: runs of one pipeline (`GET /v1/runs?pipeline=`) and the batches
 * (`GET /v1/batches`), newest first.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestStack, type TestStack } from '../testing/stack.js';

let stack: TestStack;
before(async () => {
  // No workers: the runs stay queued, which is all listing needs.
  stack = await startTestStack({ label: 'dashboard-listing', inProcessWorkers: false });
});
after(() => stack.close());

interface Listed {
  run_id: string;
  status: string;
  pipeline: { name: string } | null;
}

test('runs filter by pipeline and by status together, newest first', async () => {
  const story = async (topic: string) => (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) })).body.run_id;
  const first = await story('a first story');
  const aceflow = (await stack.json<{ run_id: string }>('/v1/aceflow/runs', { method: 'POST', body: JSON.stringify({ project: { name: 'listing-test', mode: 'standard' } }) })).body.run_id;
  const second = await story('a second story');
  await stack.request(`/v1/runs/${second}`, { method: 'DELETE' });

  const stories = (await stack.json<{ runs: Listed[] }>('/v1/runs?pipeline=story')).body.runs;
  assert.deepEqual(stories.map((r) => r.run_id), [second, first]);
  assert.ok(stories.every((r) => r.pipeline?.name === 'story'));
  assert.deepEqual((await stack.json<{ runs: Listed[] }>('/v1/runs?pipeline=aceflow')).body.runs.map((r) => r.run_id), [aceflow]);
  assert.deepEqual((await stack.json<{ runs: Listed[] }>('/v1/runs?pipeline=story&status=queued')).body.runs.map((r) => r.run_id), [first]);
  assert.deepEqual((await stack.json<{ runs: Listed[] }>('/v1/runs?pipeline=nothing-such')).body.runs, []);
  const all = (await stack.json<{ runs: Listed[] }>('/v1/runs')).body.runs.map((r) => r.run_id);
  assert.deepEqual(all, [second, aceflow, first]);
  const bad = await stack.json<{ error: { code: string } }>('/v1/runs?pipeline=');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'invalid_parameters');
});

test('batches are listed newest first with their pipeline and counts, a page at a time', async () => {
  const stories = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a mill' }, { topic: 'a ferry' }] }) });
  const aceflow = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'aceflow', items: [{ project: { name: 'batch-listing', mode: 'standard' }, stages: ['s1_user_story'] }] }) });
  assert.equal(stories.status, 202);
  assert.equal(aceflow.status, 202, JSON.stringify(aceflow.body));
  const { status, body } = await stack.json<{ batches: { batch_id: string; pipeline: string | null; total: number; counts: Record<string, number>; status: string; poll_url: string }[]; offset: number; limit: number }>('/v1/batches');
  assert.equal(status, 200);
  assert.deepEqual(body.batches.map((b) => [b.batch_id, b.pipeline, b.total]), [
    [aceflow.body.batch_id, 'aceflow', 1],
    [stories.body.batch_id, 'story', 2],
  ]);
  const [latest] = body.batches;
  assert.deepEqual(latest?.counts, { queued: 1, running: 0, waiting: 0, completed: 0, failed: 0, cancelled: 0 });
  assert.equal(latest?.status, 'running');
  assert.equal(latest?.poll_url, `/v1/batches/${aceflow.body.batch_id}`);
  const page = await stack.json<{ batches: { batch_id: string }[] }>('/v1/batches?offset=1&limit=1');
  assert.deepEqual(page.body.batches.map((b) => b.batch_id), [stories.body.batch_id]);
  assert.equal((await stack.request('/v1/batches?limit=0')).status, 400);
});
