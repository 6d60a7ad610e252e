import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine } from './progress-line.js';

test('a progress bar fills in proportion to the percentage and names the stage and topic', () => {
  const line = progressLine({ label: 'a lighthouse', status: 'running', progress: 50, stage: 'write.climax' });
  assert.match(line, /^\[█{12}░{12}\] {2}50% running {3}write\.climax/);
  assert.ok(line.endsWith('a lighthouse'));
  assert.match(progressLine({ label: 't', status: 'completed', progress: 100 }), /^\[█{24}\] 100%/);
  assert.match(progressLine({ label: 't', status: 'queued', progress: -5 }), /^\[░{24}\] {3}0%/);
});

test('a progress bar shows the words written so far once there are some', () => {
  assert.match(progressLine({ label: 't', status: 'running', progress: 57, stage: '2 stages', words: 812 }), /57% running +2 stages +812 words {2}t$/);
  assert.doesNotMatch(progressLine({ label: 't', status: 'running', progress: 14, words: 0 }), /words/);
});

test('a long topic is cut with an ellipsis', () => {
  const line = progressLine({ label: 'x'.repeat(100), status: 'queued', progress: 0 }, 10);
  assert.ok(line.endsWith(`${'x'.repeat(9)}…`));
});
