import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncSeenAfterMs, completionBound } from './realistic-bound.js';

test('an async task is seen at the first poll at or after its end', () => {
  // Polls at 250, 625, 1187.5, 2031.25 ms after the task was accepted.
  assert.equal(asyncSeenAfterMs(2000), 2031.25);
  assert.equal(asyncSeenAfterMs(250), 250);
  assert.equal(asyncSeenAfterMs(10, { initialDelayMs: 100, maxDelayMs: 100, factor: 2 }), 100);
});

test('the bound is the busiest stage class plus one story\'s critical path', () => {
  const bound = completionBound({
    stories: 10_000,
    workers: 2,
    stages: {
      search: { callsPerStory: 1, callMs: 300, concurrency: 100 },
      outline: { callsPerStory: 1, callMs: 1000, concurrency: 100 },
      writing: { callsPerStory: 4, callMs: 3000, concurrency: 100 },
      editing: { callsPerStory: 1, callMs: 2000, concurrency: 100 },
    },
  });
  // 10,000 × 4 × 3 s over 200 slots = 600 s; one story's path 0.3 + 1 + 3 + 2 s.
  assert.equal(bound.limiting_stage, 'writing');
  assert.equal(bound.by_stage_s.writing, 600);
  assert.equal(bound.by_stage_s.search, 15);
  assert.equal(bound.critical_path_s, 6.3);
  assert.equal(bound.seconds, 606.3);
});
