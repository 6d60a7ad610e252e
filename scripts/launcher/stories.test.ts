import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { storyFileNames, writeStory } from './stories.js';

test('each topic gets a file named after it, and a repeated slug gets a number instead of overwriting', () => {
  assert.deepEqual(storyFileNames(['A Robot Baker', 'a robot baker!', 'A moving island', 'a-robot-baker']), ['a-robot-baker.md', 'a-robot-baker-2.md', 'a-moving-island.md', 'a-robot-baker-3.md']);
});

test('a story is written as Markdown, creating the directory', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'sy-stories-')), 'nested', 'a-keeper.md');
  writeStory(file, { title: 'The Keeper', content: 'Once upon a time.', runId: 'run_1', wordCount: 4, topic: 'a keeper' });
  assert.equal(readFileSync(file, 'utf8'), '# The Keeper\n\nOnce upon a time.\n\n---\n\n*4 words · topic: a keeper · run run_1*\n');
});
