import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyPoints, markersLeft, outline, placeholders, prose, sectionKey, wordCount } from './markdown.js';

const DOC = `# Title {{project_name}}
<!-- guidance with {{not_a_placeholder}}
## Not a section -->
Intro line.

## 1. Overview:
{{summary}} and more {{summary}}

\`\`\`md
## Inside a fence
{{fenced}}
\`\`\`

### A subsection
text

## Users
| Persona | Needs |
| --- | --- |
| Developer | fast builds |
`;

test('sections are the level-2 headings outside comments and fences, with their bodies', () => {
  const parsed = outline(DOC);
  assert.deepEqual(parsed.sections.map((s) => s.title), ['1. Overview:', 'Users']);
  assert.deepEqual(parsed.sections.map((s) => s.key), ['overview', 'users']);
  assert.match(parsed.sections[0]?.body ?? '', /### A subsection/);
  assert.match(parsed.preamble, /Intro line/);
});

test('placeholders are distinct, in order, and ignore comments and fenced code', () => {
  assert.deepEqual(placeholders(DOC), ['project_name', 'summary']);
  assert.deepEqual(markersLeft('a {{ x }} b {{y z}} {{x}}'), ['x', 'y z']);
  assert.doesNotMatch(prose(DOC), /not_a_placeholder|fenced/);
});

test('section keys ignore case, numbering and a trailing colon', () => {
  assert.equal(sectionKey('2.1 Test  Strategy:'), 'test strategy');
  assert.equal(sectionKey('Goals and Non-Goals'), 'goals and non-goals');
});

test('words are counted in spaced text and per character in CJK text', () => {
  assert.equal(wordCount('one two  three\nfour'), 4);
  assert.equal(wordCount('测试报告 ok'), 5);
  assert.equal(wordCount('<!-- hidden words --> shown'), 1);
});

test('key points give each section its first meaningful line, skipping table headers', () => {
  assert.deepEqual(keyPoints(DOC), ['1. Overview: {{summary}} and more {{summary}}', 'Users: Developer | fast builds']);
  assert.deepEqual(keyPoints('First line.\n\nSecond line.'), ['First line.', 'Second line.']);
  assert.equal(keyPoints(`## A\n${'x'.repeat(500)}`)[0]?.length, 200);
});
