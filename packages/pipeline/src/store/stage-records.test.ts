import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StageView } from '@switchyard/contracts';
import { readStageView, STAGE_NAME, stageViewFields } from './stage-records.js';

test('a stage with no fields yet reads as pending, with no attempts', () => {
  assert.deepEqual(readStageView({}, 'search'), { name: 'search', status: 'pending', attempts: 0, started_at: null, finished_at: null, error: null });
});

test('a stage record written as fields reads back the same', () => {
  const view: StageView = {
    name: 'write.climax',
    status: 'retrying',
    attempts: 2,
    started_at: '2026-11-23T07:00:00.000Z',
    finished_at: null,
    error: { code: 'tool_unavailable', message: 'the writing service answered 503', stage: 'write.climax', retryable: true },
  };
  assert.deepEqual(readStageView(stageViewFields(view), 'write.climax'), view);
});

test('only plain stage names may be written into events as they are', () => {
  for (const name of ['search', 'write.introduction', 's4_implementation']) assert.ok(STAGE_NAME.test(name), name);
  for (const name of ['', 'a"b', 'a\\b', 'x y', 'é']) assert.ok(!STAGE_NAME.test(name), name);
});
