import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OutlineOutput, PolishOutput, SearchOutput, WriteSectionOutput } from '@switchyard/contracts';
import { countWords, createOfflineAuthor, readingTime, splitIntoChunks } from './index.js';

const live = () => ({ signal: new AbortController().signal });
const TOPIC = 'a lighthouse keeper who collects lost letters';

test('the offline author is named "offline"', () => {
  assert.equal(createOfflineAuthor().name, 'offline');
});

test('the index exports the author and the text helpers by name', () => {
  assert.equal(typeof countWords, 'function');
  assert.equal(readingTime(countWords('one two')), '1 min');
  assert.deepEqual(splitIntoChunks('A. B.'), ['A. ', 'B.']);
});

test('a whole story runs through the four tools and each output satisfies its schema', async () => {
  const author = createOfflineAuthor();
  const found = SearchOutput.parse(await author.research({ topic: TOPIC, depth: 3, type: 'historical' }, live()));
  const research = found.results.map((r) => ({ title: r.title, content: r.snippet }));
  const plan = OutlineOutput.parse(await author.outline({ topic: TOPIC, research, structure: 'four_part' }, live()));
  const section = WriteSectionOutput.parse(
    await author.writeSection({ section_name: 'introduction', outline: plan.sections.introduction, style: 'lyrical', story_title: plan.title }, live()),
  );
  const polished = PolishOutput.parse(await author.polish({ draft: section.content, focus_areas: ['language'], target_audience: 'general' }, live()));
  assert.ok(polished.polished_content.includes(plan.sections.introduction.characters[0] ?? '?'));
});

test('streamed chunks join to exactly the returned content', async () => {
  const author = createOfflineAuthor();
  const chunks: string[] = [];
  const section = await author.writeSection(
    { section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] }, style: 'suspenseful' },
    { ...live(), onChunk: (c) => chunks.push(c) },
  );
  assert.ok(chunks.length > 10);
  assert.equal(chunks.join(''), section.content);

  const polishedChunks: string[] = [];
  const polished = await author.polish(
    { draft: 'The the lamp fails.  Mara waits.\n\nDawn comes.', focus_areas: ['language'], target_audience: 'general' },
    { ...live(), onChunk: (c) => polishedChunks.push(c) },
  );
  assert.deepEqual(polishedChunks, ['The lamp fails. ', 'Mara waits.\n\n', 'Dawn comes.']);
  assert.equal(polishedChunks.join(''), polished.polished_content);
});

test('an already aborted signal rejects every method before any work', async () => {
  const author = createOfflineAuthor();
  const controller = new AbortController();
  controller.abort();
  const options = { signal: controller.signal, onChunk: () => assert.fail('no chunk after abort') };
  await assert.rejects(author.research({ topic: TOPIC, depth: 1, type: 'reference' }, options), { name: 'AbortError' });
  await assert.rejects(author.outline({ topic: TOPIC, research: [], structure: 'four_part' }, options), { name: 'AbortError' });
  await assert.rejects(author.writeSection({ section_name: 'climax', outline: { title: 'T', key_points: ['k'] }, style: 'concise' }, options), { name: 'AbortError' });
  await assert.rejects(author.polish({ draft: 'x', focus_areas: [], target_audience: 'general' }, options), { name: 'AbortError' });
});

test('a caller that leaves mid-stream stops the stream', async () => {
  const author = createOfflineAuthor();
  const controller = new AbortController();
  let received = 0;
  const run = author.writeSection(
    { section_name: 'introduction', outline: { title: 'T', key_points: ['k'] }, style: 'neutral' },
    { signal: controller.signal, onChunk: () => (received += 1) === 2 && controller.abort() },
  );
  await assert.rejects(run, { name: 'AbortError' });
  assert.equal(received, 2);
});

test('the same calls twice give byte-identical results', async () => {
  const author = createOfflineAuthor();
  const calls = async () =>
    JSON.stringify([
      await author.research({ topic: TOPIC, depth: 5, type: 'reference' }, live()),
      await author.outline({ topic: TOPIC, research: [{ title: 'Lost mail', content: 'Dead letter offices' }], structure: 'four_part' }, live()),
      await author.writeSection({ section_name: 'conclusion', outline: { title: 'Home', key_points: ['the letters are delivered'], theme: 'care' }, style: 'humorous' }, live()),
      await author.polish({ draft: 'A  draft draft.', focus_areas: ['language', 'pacing'], target_audience: 'children' }, live()),
    ]);
  assert.equal(await calls(), await calls());
});
