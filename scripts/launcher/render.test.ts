import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugOf, storyMarkdown } from './render.js';

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
