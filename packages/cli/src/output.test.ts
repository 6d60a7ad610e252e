import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultText, shortTime, table } from './output.js';

test("a story's result reads as its title and its text, without how it was made", () => {
  const text = resultText({ title: 'The Keeper', content: 'Once upon a time.\n\nThe end.\n', word_count: 6, research: [{ title: 'x', content: 'y' }], outline: { sections: {} } });
  assert.equal(text, '# The Keeper\n\nOnce upon a time.\n\nThe end.');
});

test("section-review's result reads top to bottom: title, each section under its name, the summary under a heading, short facts last", () => {
  const long = (word: string) => `${word} `.repeat(20).trim();
  const text = resultText({ title: 'The Tide Clock', sections: [{ name: 'introduction', reviewed: long('intro') }, { name: 'climax', reviewed: long('climax') }], summary: long('summary'), changes: 3 });
  assert.equal(text, `# The Tide Clock\n\n## Sections\n\n### introduction\n\n${long('intro')}\n\n### climax\n\n${long('climax')}\n\n## Summary\n\n${long('summary')}\n\nchanges: 3`);
});

test('any other result still prints: text as is, nothing as nothing, and a deep object cut to JSON past six levels', () => {
  assert.equal(resultText('plain words '), 'plain words');
  assert.equal(resultText(null), '');
  assert.equal(resultText(42), '42');
  assert.equal(resultText({ tags: ['a', 'b'], ok: true }), 'tags: a, b\nok: true');
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 10; i += 1) deep = { inner: deep };
  assert.match(resultText(deep), /\{"inner":\{"inner"/);
});

test('a table pads its columns to the widest cell and leaves the last one ragged', () => {
  assert.equal(table(['A', 'BB'], [['xxx', 'y'], ['z', 'long value']]), 'A    BB\nxxx  y\nz    long value');
  assert.equal(shortTime('2025-01-02T03:04:05.678Z'), '2025-01-02 03:04:05');
  assert.equal(shortTime(null), '');
});
