import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareStreamIds } from '@switchyard/pipeline';
import { startedRunIds } from '../features.js';
import { parseResourceUri, uris } from './uris.js';

const RUN = `run_${'a'.repeat(32)}`;
const BATCH = `batch_${'b'.repeat(32)}`;

test('each resource URI parses back to what it names', () => {
  assert.deepEqual(parseResourceUri(uris.run(RUN)), { kind: 'run', runId: RUN });
  assert.deepEqual(parseResourceUri(uris.story(RUN)), { kind: 'story', runId: RUN });
  assert.deepEqual(parseResourceUri(uris.batch(BATCH)), { kind: 'batch', batchId: BATCH });
  assert.deepEqual(parseResourceUri(uris.pipeline('section-review')), { kind: 'pipeline', name: 'section-review' });
  assert.deepEqual(parseResourceUri(uris.pipelineVersion('story', 3)), { kind: 'pipelineVersion', name: 'story', version: 3 });
});

test('URIs that name nothing the bridge serves, or ids its stores never make, parse to nothing', () => {
  for (const uri of [
    'test://watched-resource',
    'switchyard://runs/run_1',
    `switchyard://runs/${RUN}/story.txt`,
    `switchyard://runs/${RUN}/story.md/more`,
    `switchyard://batches/${RUN}`,
    'switchyard://pipelines/Story',
    'switchyard://pipelines/story/versions/0',
    'switchyard://pipelines/story/versions/x',
    'switchyard://runs/*',
  ]) {
    assert.equal(parseResourceUri(uri), undefined, uri);
  }
});

test('stream ids are ordered by time, then by sequence', () => {
  assert.ok(compareStreamIds('1-1', '1-2') < 0);
  assert.ok(compareStreamIds('2-0', '1-9') > 0);
  assert.ok(compareStreamIds('0', '1-0') < 0);
  assert.equal(compareStreamIds('5-5', '5-5'), 0);
});

test('the runs a starting tool answered are the ones a session logs; other tools and failures start none', () => {
  assert.deepEqual(startedRunIds('start_story', 'jobs', { content: { run_id: RUN, status: 'queued' } }), [RUN]);
  assert.deepEqual(startedRunIds('start_story_batch', 'jobs', { content: { batch_id: BATCH, run_ids: [RUN, 'nonsense'] } }), [RUN]);
  assert.deepEqual(startedRunIds('pipeline_story', 'pipelines', { content: { run_id: RUN } }), [RUN]);
  assert.deepEqual(startedRunIds('get_run', 'jobs', { content: { run_id: RUN } }), []);
  assert.deepEqual(startedRunIds('start_story', 'jobs', { content: { error: { code: 'x' } }, isError: true }), []);
});
