import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PipelineStore } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { finishedRun, registerPipeline, startRun } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'pipeline-deletion' });
});
after(async () => {
  await stack.close();
});

const search = (topic: string) => ({ tool: 'search_relevant_information', args: { topic: `'${topic}'` } });

async function pausedWorkers<T>(work: () => Promise<T>): Promise<T> {
  const workers = stack.workers?.workers ?? [];
  await Promise.all(workers.map((worker) => worker.pause(true)));
  try {
    return await work();
  } finally {
    for (const worker of workers) worker.resume();
  }
}

test('a run started before its pipeline was deleted completes on its version; new runs are refused with 404', async () => {
  const version = await registerPipeline(stack, { name: 'doomed', steps: { find: search('tides'), more: { ...search('moons'), needs: ['find'] } } });
  // The workers look the version up only after the deletion: they must find it kept aside.
  const runId = await pausedWorkers(async () => {
    const started = await startRun(stack, 'doomed', {});
    const deleted = await stack.json<{ name: string; outcome: string; versions: number[] }>('/v1/pipelines/doomed', { method: 'DELETE' });
    assert.deepEqual([deleted.status, deleted.body], [200, { name: 'doomed', outcome: 'deleted', versions: [version] }]);
    return started;
  });
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.pipeline, { name: 'doomed', version });

  const again = await stack.json<{ error: { code: string } }>('/v1/pipelines/doomed/runs', { method: 'POST', body: '{}' });
  assert.deepEqual([again.status, again.body.error.code], [404, 'pipeline_not_found']);
  assert.equal((await stack.json('/v1/pipelines/doomed/runs?version=1', { method: 'POST', body: '{}' })).status, 404);
  assert.equal((await stack.json('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'doomed', items: [{}] }) })).status, 404);
  assert.equal((await stack.json('/v1/pipelines/doomed')).status, 404);
  const listed = await stack.json<{ pipelines: { name: string }[] }>('/v1/pipelines');
  assert.ok(!listed.body.pipelines.some((p) => p.name === 'doomed'));
  assert.equal((await stack.json('/v1/pipelines/doomed', { method: 'DELETE' })).status, 404, 'deleting it again finds nothing');

  // Registered anew, it does not take the deleted version's number: a run pinned to it means one definition.
  assert.equal(await registerPipeline(stack, { name: 'doomed', steps: { find: search('stars') } }), version + 1);
});

test('a deleted version is kept for the runs on it, and only for them', async () => {
  const version = await registerPipeline(stack, { name: 'kept', steps: { find: search('tides') } });
  assert.equal((await stack.json('/v1/pipelines/kept', { method: 'DELETE' })).status, 200);
  // A process that never compiled it (a worker started since) reads it from where it is kept.
  const redis = createRedisClient(stack.redisUrl);
  try {
    const fresh = new PipelineStore({ redis, prefix: stack.prefix });
    assert.equal((await fresh.pinned('kept', version))?.version, version);
    assert.equal(await fresh.compiled('kept', version), null, 'but no new run gets it');
    assert.equal(await fresh.compiled('kept'), null);
  } finally {
    await redis.quit();
  }
});

test('deleting a version takes it from new runs; the latest becomes the highest left, and its number is not given again', async () => {
  await registerPipeline(stack, { name: 'layered', steps: { find: search('one') } });
  await registerPipeline(stack, { name: 'layered', steps: { find: search('two') } });
  const deleted = await stack.json<{ version: number; latest: number | null }>('/v1/pipelines/layered/versions/2', { method: 'DELETE' });
  assert.deepEqual([deleted.status, deleted.body.version, deleted.body.latest], [200, 2, 1]);
  const read = await stack.json<{ latest: number; versions: { version: number }[] }>('/v1/pipelines/layered');
  assert.deepEqual([read.body.latest, read.body.versions.map((v) => v.version)], [1, [1]]);
  const run = await stack.json<{ pipeline: { version: number } }>('/v1/pipelines/layered/runs', { method: 'POST', body: '{}' });
  assert.deepEqual([run.status, run.body.pipeline.version], [202, 1]);
  assert.equal((await stack.json('/v1/pipelines/layered/runs?version=2', { method: 'POST', body: '{}' })).status, 404);
  assert.equal((await stack.json('/v1/pipelines/layered/versions/2', { method: 'DELETE' })).status, 404);
  assert.equal((await stack.json('/v1/pipelines/layered/versions/99', { method: 'DELETE' })).status, 404);
  assert.equal((await stack.json('/v1/pipelines/layered/versions/1e3', { method: 'DELETE' })).status, 404);
  assert.equal(await registerPipeline(stack, { name: 'layered', steps: { find: search('three') } }), 3);
  const explicit = await stack.json<{ error: { code: string } }>('/v1/pipelines/layered', { method: 'PUT', body: JSON.stringify({ name: 'layered', version: 2, steps: { find: search('again') } }) });
  assert.deepEqual([explicit.status, explicit.body.error.code], [409, 'version_conflict']);

  const last = await stack.json<{ latest: number | null }>('/v1/pipelines/layered/versions/1', { method: 'DELETE' });
  assert.equal(last.body.latest, 3);
  assert.equal((await stack.json<{ latest: number | null }>('/v1/pipelines/layered/versions/3', { method: 'DELETE' })).body.latest, null);
  assert.equal((await stack.json('/v1/pipelines/layered')).status, 404, 'with no version left, the pipeline is gone');
});

test('the shipped pipelines the story and AceFlow routes run cannot be deleted, nor their last version', async () => {
  for (const name of ['story', 'aceflow']) {
    const refused = await stack.json<{ error: { code: string } }>(`/v1/pipelines/${name}`, { method: 'DELETE' });
    assert.deepEqual([refused.status, refused.body.error.code], [409, 'pipeline_shipped']);
  }
  const story = await stack.json<{ latest: number; versions: { version: number }[] }>('/v1/pipelines/story');
  assert.equal(story.body.versions.length, 1, 'a fresh deployment has the shipped version only');
  const last = await stack.json<{ error: { code: string } }>(`/v1/pipelines/story/versions/${story.body.latest}`, { method: 'DELETE' });
  assert.deepEqual([last.status, last.body.error.code], [409, 'pipeline_shipped']);
  // A version of the story a user registered is theirs to delete.
  const shipped = await stack.json<{ definition: Record<string, unknown> }>('/v1/pipelines/story');
  const mine = await registerPipeline(stack, { ...shipped.body.definition, name: 'story', version: undefined, description: 'my own story' });
  assert.equal((await stack.json(`/v1/pipelines/story/versions/${mine}`, { method: 'DELETE' })).status, 200);
  assert.equal((await stack.json('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'tides' }) })).status, 202);
});
