import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clauseCase, countWords, fill, inlineCase, readingTime, splitIntoChunks } from './text.js';

test('countWords counts whitespace-separated words and each CJK character as one', () => {
  assert.equal(countWords('the lamp  fails\n\ntonight'), 4);
  assert.equal(countWords('灯塔守'), 3);
  assert.equal(countWords('a 灯塔 keeper'), 4);
  assert.equal(countWords('   '), 0);
});

test('readingTime rounds up at 200 words a minute and never says less than one minute', () => {
  assert.equal(readingTime(0), '1 min');
  assert.equal(readingTime(200), '1 min');
  assert.equal(readingTime(201), '2 min');
  assert.equal(readingTime(1000), '5 min');
});

test('chunks join back to exactly the original text', () => {
  const samples = [
    'One. Two! Three? Four',
    'First paragraph ends here.\n\nSecond one "quotes." And… trails off...  Then spaces   ',
    '  leading space, no stop at all',
    'Line one\nline two\n\n\nline three.',
    '3.5 miles away. Mr. Quill said so!?',
    '',
  ];
  for (const text of samples) assert.equal(splitIntoChunks(text).join(''), text, JSON.stringify(text));
});

test('each chunk holds one sentence with the space after it', () => {
  assert.deepEqual(splitIntoChunks('The lamp fails. Mara waits!\n\nThen dawn?'), ['The lamp fails. ', 'Mara waits!\n\n', 'Then dawn?']);
  assert.deepEqual(splitIntoChunks(''), []);
});

test('fill does not rescan what it inserts, and fails loudly on an unknown placeholder', () => {
  assert.equal(fill('{a} and {b}', { a: '{b}', b: '$&' }), '{b} and $&');
  assert.throws(() => fill('{missing}', {}));
});

test('inlineCase lower-cases sentence case but keeps names, acronyms and other capitals', () => {
  assert.equal(inlineCase('The lamp fails'), 'the lamp fails');
  assert.equal(inlineCase('Mara sees Iris', new Set(['Mara', 'Iris'])), 'Mara sees Iris');
  assert.equal(inlineCase('Royal Mail history'), 'Royal Mail history');
  assert.equal(inlineCase('NASA archives'), 'NASA archives');
});

test('clauseCase lower-cases only openers that cannot be names', () => {
  assert.equal(clauseCase('The lamp fails'), 'the lamp fails');
  assert.equal(clauseCase('Everything burns'), 'everything burns');
  assert.equal(clauseCase('Bob finds the key'), 'Bob finds the key');
  assert.equal(clauseCase('I run'), 'I run');
});
