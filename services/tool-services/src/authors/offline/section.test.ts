import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SECTION_ORDER, WriteSectionOutput, type SectionName, type WriteSectionInput } from '@switchyard/contracts';
import { outline } from './outline.js';
import { writeSection } from './section.js';
import { countWords, paragraphsOf, readingTime } from './text.js';

const TOPIC = 'a lighthouse keeper who collects lost letters';
const story = outline({ topic: TOPIC, research: [{ title: 'Lost mail', content: 'Dead letter offices burned what no one claimed.' }], structure: 'four_part' });
const STYLES = ['descriptive', 'suspenseful', 'humorous', 'lyrical', 'concise', 'plain'];

function sectionInput(section: SectionName, style = 'descriptive'): WriteSectionInput {
  return { section_name: section, outline: story.sections[section], style, story_title: story.title, characters: story.sections.introduction.characters };
}

/** Key points as the prose carries them: closing punctuation dropped, first letter in either case. */
const asWritten = (point: string) => new RegExp(point.replace(/[.!?]+$/u, '').slice(1).replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'));

test('every key point appears in its section', () => {
  for (const section of SECTION_ORDER) {
    const { content } = writeSection(sectionInput(section));
    for (const point of story.sections[section].key_points) assert.match(content, asWritten(point), `${section}: ${point}`);
  }
});

test('the introduction names each character with a role, later sections by first name', () => {
  const intro = writeSection(sectionInput('introduction')).content;
  for (const character of story.sections.introduction.characters) assert.ok(intro.includes(character), character);
  const firstNames = story.sections.introduction.characters.map((c) => c.split(' ')[0] ?? '');
  for (const section of ['development', 'climax', 'conclusion'] as const) {
    const content = writeSection(sectionInput(section)).content;
    for (const name of firstNames) assert.ok(content.includes(name), `${section} lacks ${name}`);
  }
});

test('characters come from the caller when the outline has none', () => {
  const out = writeSection({ section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] }, style: 'suspenseful', characters: ['Odile Marsh, a ferry pilot', 'Bram'] });
  assert.match(out.content, /Odile/);
  assert.match(out.content, /Bram/);
});

test('a section with no cast at all invents one and still names people', () => {
  const out = writeSection({ section_name: 'development', outline: { title: 'The Search', key_points: ['letters point north'] }, style: 'neutral' });
  assert.match(out.content, /letters point north/);
  assert.match(out.content, /\b[A-Z][a-z]+(, [A-Z][a-z]+)* and [A-Z][a-z]+ are in it together/);
});

test('people the key points name are the cast when no list is given', () => {
  const out = writeSection({ section_name: 'climax', outline: { title: 'T', key_points: ['Silas risks everything', 'the storm hits and Odile runs'] }, style: 'neutral' });
  assert.match(out.content, /Silas risks everything/);
  assert.match(out.content, /Silas and Odile end up in the same place/);
});

test('conflict, resolution set-up and theme are woven into the prose', () => {
  assert.match(writeSection(sectionInput('development')).content, asWritten(story.sections.development.conflict));
  assert.match(writeSection(sectionInput('climax')).content, asWritten(story.sections.climax.resolution_setup));
  assert.match(writeSection(sectionInput('conclusion')).content, asWritten(story.sections.conclusion.theme));
});

test('each section reads differently, even from the same outline', () => {
  const same = story.sections.development;
  const contents = SECTION_ORDER.map((section_name) => writeSection({ section_name, outline: same, style: 'neutral', story_title: story.title }).content);
  const openings = contents.map((c) => c.split('. ')[0]);
  assert.equal(new Set(openings).size, 4, openings.join(' | '));
  assert.match(contents[0] ?? '', /At first|Early on|To begin with|In those first days/);
  assert.match(contents[3] ?? '', /In the end|Afterwards|At last|When the dust settles/);
});

test('style changes the output, and concise writes the least', () => {
  const byStyle = Object.fromEntries(STYLES.map((style) => [style, writeSection(sectionInput('climax', style))]));
  assert.equal(new Set(STYLES.map((s) => byStyle[s]?.content)).size, STYLES.length);
  assert.match(byStyle.suspenseful?.content ?? '', /\. (A pause|No warning|Too quiet|A heartbeat|Nobody breathes|Something shifts)\./);
  for (const style of STYLES.filter((s) => s !== 'concise')) assert.ok((byStyle.concise?.word_count ?? 0) < (byStyle[style]?.word_count ?? 0), style);
});

test('a section has three to six paragraphs and 250 to 600 words, whatever its style', () => {
  const topics = [TOPIC, 'jazz in New Orleans', 'a robot learning to paint', 'Storm'];
  for (const topic of topics) {
    const o = outline({ topic, research: [], structure: 'four_part' });
    for (const section of SECTION_ORDER)
      for (const style of STYLES) {
        const out = writeSection({ section_name: section, outline: o.sections[section], style, story_title: o.title });
        const paragraphs = paragraphsOf(out.content).length;
        assert.ok(paragraphs >= 3 && paragraphs <= 6, `${topic}/${section}/${style}: ${paragraphs} paragraphs`);
        assert.ok(out.word_count >= 250 && out.word_count <= 600, `${topic}/${section}/${style}: ${out.word_count} words`);
      }
  }
});

test('a single short key point is still written out at full length', () => {
  const out = writeSection({ section_name: 'introduction', outline: { title: 'x', key_points: ['rain'] }, style: 'concise' });
  assert.ok(out.word_count >= 250, `${out.word_count}`);
  assert.match(out.content, /rain/);
});

test('word count and reading time describe the content', () => {
  const out = writeSection(sectionInput('conclusion', 'lyrical'));
  assert.equal(out.word_count, countWords(out.content));
  assert.equal(out.reading_time, readingTime(out.word_count));
  assert.doesNotThrow(() => WriteSectionOutput.parse(out));
});

test('braces and dollar signs in a key point come through literally', () => {
  const out = writeSection({ section_name: 'climax', outline: { title: 'T', key_points: ['the price is $& and {hero}'] }, style: 'neutral' });
  assert.ok(out.content.includes('the price is $& and {hero}'));
});

test('the same section twice is byte-identical, and another outline differs', () => {
  assert.deepEqual(writeSection(sectionInput('climax')), writeSection(sectionInput('climax')));
  const other = { ...sectionInput('climax'), outline: { ...story.sections.climax, key_points: ['the bridge gives way'] } };
  assert.notEqual(writeSection(other).content, writeSection(sectionInput('climax')).content);
});
