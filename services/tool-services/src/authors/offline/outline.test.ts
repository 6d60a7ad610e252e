import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutlineOutput, SECTION_ORDER, type OutlineInput } from '@switchyard/contracts';
import { outline } from './outline.js';

const TOPIC = 'a lighthouse keeper who collects lost letters';
const input = (topic: string, research: OutlineInput['research'] = []): OutlineInput => ({ topic, research, structure: 'four_part' });
const allKeyPoints = (out: ReturnType<typeof outline>) => SECTION_ORDER.flatMap((s) => out.sections[s].key_points).join('\n');

test('a research finding shapes the outline key points', () => {
  const out = outline(input(TOPIC, [{ title: 'Dead letter offices', content: 'Undeliverable mail was sorted at the Zanzibar depot before being burned.' }]));
  const points = allKeyPoints(out);
  assert.match(points, /dead letter offices/i);
  assert.match(points, /Zanzibar/);
  assert.doesNotMatch(allKeyPoints(outline(input(TOPIC))), /Zanzibar/);
});

test('findings are spread across all four sections', () => {
  const research = ['Alpha', 'Bravo', 'Charlie', 'Delta'].map((word) => ({ title: `${word} records`, content: `${word} notes.` }));
  const out = outline(input(TOPIC, research));
  SECTION_ORDER.forEach((section, i) => assert.match(out.sections[section].key_points.join(' '), new RegExp(research[i]?.title ?? '?', 'i')));
});

test('with no research the outline still grows from the topic alone', () => {
  const out = outline(input('clockmakers of the drowned city'));
  assert.match(allKeyPoints(out), /drowned city/);
  assert.doesNotThrow(() => OutlineOutput.parse(out));
});

test('the story title derives from the topic', () => {
  assert.equal(outline(input(TOPIC)).title, 'The Lighthouse Keeper Who Collects Lost Letters');
  assert.equal(outline(input('jazz in New Orleans')).title, 'Jazz in New Orleans');
});

test('the cast is two or three named people with a role, the first fitting the topic', () => {
  const characters = outline(input(TOPIC)).sections.introduction.characters;
  assert.ok(characters.length >= 2 && characters.length <= 3);
  for (const c of characters) assert.match(c, /^[A-Z][a-z]+ [A-Z][a-z]+, an? [a-z ]+$/);
  assert.match(characters[0] ?? '', /, a lighthouse keeper$/);
});

test('a topic about what a person does makes that activity the subject', () => {
  const out = outline(input('a robot learning to paint'));
  assert.match(out.sections.introduction.characters[0] ?? '', /, a robot$/);
  assert.match(out.sections.climax.key_points.join(' '), /learning to paint/);
  assert.doesNotMatch(out.sections.development.conflict, /between (.+) and the truth about \1/);
});

test('every section has two to four key points, however much research there is', () => {
  for (let n = 0; n <= 12; n += 1) {
    const research = Array.from({ length: n }, (_, i) => ({ title: `Finding ${i}`, content: `Detail number ${i}.` }));
    const out = outline(input(TOPIC, research));
    for (const section of SECTION_ORDER) {
      const count = out.sections[section].key_points.length;
      assert.ok(count >= 2 && count <= 4, `${section} has ${count} with ${n} findings`);
    }
  }
});

test('the development has a conflict, the climax a resolution set-up and the conclusion a theme', () => {
  const out = outline(input(TOPIC));
  assert.match(out.sections.development.conflict, /lost letters/);
  assert.match(out.sections.climax.resolution_setup, /lost letters/);
  assert.ok(out.sections.conclusion.theme.length > 10);
});

test('the same outline request twice gives the same outline, and another topic another', () => {
  const research = [{ title: 'Lost mail', content: 'Dead letter offices' }];
  assert.deepEqual(outline(input(TOPIC, research)), outline(input(TOPIC, research)));
  assert.notDeepEqual(outline(input(TOPIC)), outline(input('a ferry pilot who collects lost songs')));
});

test('outline output satisfies the contract schema', () => {
  assert.doesNotThrow(() => OutlineOutput.parse(outline(input(TOPIC, [{ title: 'Lost mail', content: '' }]))));
  assert.doesNotThrow(() => OutlineOutput.parse(outline(input('the'))));
});

test('topics made of small words or punctuation still give a usable outline', () => {
  for (const topic of ['the', '?', '灯塔看守人']) {
    const out = OutlineOutput.parse(outline(input(topic)));
    assert.ok(out.title.length > 0, topic);
    assert.doesNotMatch(JSON.stringify(out), /the the /);
  }
});
