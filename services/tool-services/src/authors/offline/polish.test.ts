import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PolishOutput, type PolishInput } from '@switchyard/contracts';
import { outline } from './outline.js';
import { polish } from './polish.js';
import { writeSection } from './section.js';
import { countWords, paragraphsOf } from './text.js';

const DEFAULT_FOCUS = ['character_development', 'pacing', 'language'];
const input = (draft: string, focus_areas = DEFAULT_FOCUS, target_audience = 'general'): PolishInput => ({ draft, focus_areas, target_audience });
const countOf = (out: PolishOutput, type: string) => out.improvements.find((i) => i.type === type)?.count;

test('polish removes doubled words and double spaces, and counts each edit', () => {
  const out = polish(input('The the keeper  climbs the stairs .\n\nShe lights the the lamp.'));
  assert.equal(out.polished_content, 'The keeper climbs the stairs.\n\nShe lights the lamp.');
  assert.equal(countOf(out, 'language_enhancement'), 4);
});

test('each focus area gets one improvement entry with its mapped type', () => {
  const out = polish(input('A calm day.', ['character_development', 'pacing', 'language', 'dialogue']));
  assert.deepEqual(out.improvements.map((i) => i.type), ['character_depth', 'pacing_adjustment', 'language_enhancement', 'dialogue']);
  assert.equal(countOf(out, 'dialogue'), 0);
});

test('a clean draft comes back unchanged with zero counts', () => {
  const draft = 'Mara climbs the stairs. The lamp is cold.\n\nOutside, the sea is loud. She waits for dawn.';
  const out = polish(input(draft));
  assert.equal(out.polished_content, draft);
  assert.ok(out.improvements.every((i) => i.count === 0));
});

test('edits are made only for the focus areas asked for', () => {
  const out = polish(input('The the keeper  waits.', ['pacing']));
  assert.equal(out.polished_content, 'The the keeper  waits.');
  assert.deepEqual(out.improvements, [{ type: 'pacing_adjustment', count: 0 }]);
});

test('very long sentences are split at a conjunction for young readers only', () => {
  const long =
    'Mara carried the lamp up the narrow stairs past the window where the storm was loudest, and she set it down beside the old brass telescope that her grandmother had polished every single morning for forty years.';
  const young = polish(input(long, ['pacing'], 'children'));
  assert.equal(countOf(young, 'pacing_adjustment'), 1);
  assert.match(young.polished_content, /loudest\. She set it down/);
  const adult = polish(input(long, ['pacing'], 'general'));
  assert.equal(adult.polished_content, long);
  assert.equal(countOf(adult, 'pacing_adjustment'), 0);
});

test('a run of sentences opening on the same word is varied', () => {
  const out = polish(input('She walked. She waited. She slept.', ['pacing']));
  assert.match(out.polished_content, /^She walked\. She waited\. [A-Z][a-z]+( [a-z]+)? she slept\.$/);
  assert.equal(countOf(out, 'pacing_adjustment'), 1);
});

test('a lower-case name the draft elsewhere capitalises is fixed', () => {
  const out = polish(input('At noon they met Mara by the pier. Later, Mara smiled. Then mara left.', ['character_development']));
  assert.match(out.polished_content, /Then Mara left\./);
  assert.equal(countOf(out, 'character_depth'), 1);
});

test('articles agree with the sound of the next word, and sentences start with a capital', () => {
  const out = polish(input('she ate a apple and an book. an hour passed. a unicorn watched. then i left.', ['grammar']));
  assert.equal(out.polished_content, 'She ate an apple and a book. An hour passed. A unicorn watched. Then I left.');
  // a→an, an→a, and five capitals: She, An, A, Then, I.
  assert.equal(countOf(out, 'grammar'), 7);
});

test('dialogue tags, abbreviations and ellipses keep their lower case', () => {
  const draft = '"Why?" she asked. It was 3 p.m. and raining, e.g. here... and there.';
  assert.equal(polish(input(draft, ['language'])).polished_content, draft);
});

test('a polished story keeps its paragraphs and its sentences', () => {
  const o = outline({ topic: 'a lighthouse keeper who collects lost letters', research: [], structure: 'four_part' });
  const draft = (['introduction', 'climax'] as const)
    .map((s) => writeSection({ section_name: s, outline: o.sections[s], style: 'descriptive', story_title: o.title }).content)
    .join('\n\n');
  const out = polish(input(`${draft.replace('The ', 'The the ')}`, DEFAULT_FOCUS, 'young_adult'));
  assert.equal(paragraphsOf(out.polished_content).length, paragraphsOf(draft).length);
  const sentences = draft.split(/(?<=\.) /u);
  const kept = sentences.filter((s) => out.polished_content.includes(s)).length;
  assert.ok(kept / sentences.length > 0.8, `kept ${kept} of ${sentences.length}`);
  assert.ok((countOf(out, 'language_enhancement') ?? 0) >= 1);
});

test('word count describes the polished text and the output satisfies the schema', () => {
  const out = polish(input('One  two two three.'));
  assert.equal(out.word_count, countWords(out.polished_content));
  assert.equal(out.word_count, 3);
  assert.doesNotThrow(() => PolishOutput.parse(out));
});

test('the same draft polished twice gives the same result', () => {
  const draft = 'He ran. He hid. He waited. He listened. He breathed. He ran again.';
  assert.deepEqual(polish(input(draft)), polish(input(draft)));
});
