import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine, slugOf, storyMarkdown } from './render.js';

test('a progress bar fills in proportion to the percentage and names the stage and topic', () => {
  const line = progressLine({ topic: 'a lighthouse', status: 'running', progress: 50, stage: 'write.climax' });
  assert.match(line, /^\[█{12}░{12}\] {2}50% running {3}write\.climax/);
  assert.ok(line.endsWith('a lighthouse'));
  assert.match(progressLine({ topic: 't', status: 'completed', progress: 100 }), /^\[█{24}\] 100%/);
  assert.match(progressLine({ topic: 't', status: 'queued', progress: -5 }), /^\[░{24}\] {3}0%/);
});

test('a progress bar shows the words written so far once there are some', () => {
  assert.match(progressLine({ topic: 't', status: 'running', progress: 57, stage: '2 stages', words: 812 }), /57% running +2 stages +812 words {2}t$/);
  assert.doesNotMatch(progressLine({ topic: 't', status: 'running', progress: 14, words: 0 }), /words/);
});

test('a long topic is cut with an ellipsis', () => {
  const line = progressLine({ topic: 'x'.repeat(100), status: 'queued', progress: 0 }, 10);
  assert.ok(line.endsWith(`${'x'.repeat(9)}…`));
});

test('slugs are lower case with dashes, at most 60 characters, and never empty', () => {
  assert.equal(slugOf('A Lighthouse Keeper, who collects LOST letters!'), 'a-lighthouse-keeper-who-collects-lost-letters');
  assert.equal(slugOf('Café déjà vu'), 'cafe-deja-vu');
  assert.equal(slugOf('!!!'), 'story');
  assert.ok(slugOf('word '.repeat(40)).length <= 60);
  assert.ok(!slugOf('word '.repeat(40)).endsWith('-'));
});

test('a story file has the title, the content and a footer naming the run', () => {
  const md = storyMarkdown({ title: 'The Keeper', content: 'Once.\n', runId: 'run_1', wordCount: 1, topic: 'a keeper' });
  assert.equal(md, '# The Keeper\n\nOnce.\n\n---\n\n*1 words · topic: a keeper · run run_1*\n');
});
