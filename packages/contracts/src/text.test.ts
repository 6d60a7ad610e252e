import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countWords, readingTime } from './text.js';

test('words are counted by whitespace, ignoring bare punctuation', () => {
  assert.equal(countWords('The keeper  climbed — slowly — up the stairs.'), 7);
});

test('each CJK character counts as one word', () => {
  assert.equal(countWords('灯塔守护者 collects letters'), 7);
});

test('reading time rounds up at 200 words a minute and is never zero', () => {
  assert.equal(readingTime(0), '1 min');
  assert.equal(readingTime(201), '2 min');
});
