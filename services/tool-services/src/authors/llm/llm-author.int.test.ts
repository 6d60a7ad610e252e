import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { countWords, OutlineOutput, StageDocumentInput, WriteSectionInput } from '@switchyard/contracts';
import { createLlmAuthor } from './index.js';
import type { StoryAuthor } from '../author.js';

interface ChatMessage {
  role: string;
  content: string;
}
interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
}

const OUTLINE = {
  title: 'The Lighthouse Keeper',
  sections: {
    introduction: { title: 'Arrival', key_points: ['Mara arrives on the island'], characters: ['Mara', 'Old Tom'] },
    development: { title: 'The Storm', key_points: ['The lamp fails'], conflict: 'Mara against the storm' },
    climax: { title: 'The Light', key_points: ['Mara climbs the tower'], resolution_setup: 'The ship turns away from the rocks' },
    conclusion: { title: 'Morning', key_points: ['Calm sea'], theme: 'Duty in solitude' },
  },
};
const SECTION_PIECES = ['Mara ', 'stepped ', 'off ', 'the ', 'ferry ', 'into ', 'the ', 'wind.'];
const DOCUMENT_PIECES = ['# Test Report\n\n', '## Failures and Defects\n', '- [high] Login fails ', 'with an expired token\n'];
const SLOW_CHUNK_DELAY_MS = 300;

/** Every request the fake model received, in order. */
const requests: ChatRequest[] = [];
let baseUrl = '';
const server = createServer((req, res) => void handle(req, res));

function firstHuman(body: ChatRequest): string {
  return body.messages.find((message) => message.role === 'user')?.content ?? '';
}

/** Canned, deterministic replies chosen by what the prompt asks for. */
function replyFor(body: ChatRequest): string {
  const prompt = firstHuman(body);
  const isRepair = body.messages.length > 2;
  if (prompt.includes('repair-me')) return isRepair ? JSON.stringify(OUTLINE) : 'Sure! Here is your outline: {"title": ';
  if (prompt.includes('hopeless')) return JSON.stringify({ title: 'Only a title' });
  if (prompt.includes('story outline')) return '```json\n' + JSON.stringify(OUTLINE) + '\n```';
  if (prompt.includes('Polish this story draft')) {
    return JSON.stringify({ polished_content: 'The cat 猫が座った。\n\nQuietly — now.', improvements: [{ type: 'pacing', count: 2 }], word_count: 999 });
  }
  return 'I cannot help with that.';
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const part of req) raw += String(part);
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.parse(raw) as ChatRequest;
  requests.push(body);
  const base = { id: `chatcmpl-${requests.length}`, created: Math.floor(Date.now() / 1000), model: body.model };
  if (!body.stream) {
    const message = { role: 'assistant', content: replyFor(body) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] }));
    return;
  }
  const slow = firstHuman(body).includes('SLOW');
  const document = firstHuman(body).includes('AceFlow pipeline');
  const pieces = slow ? Array.from({ length: 40 }, (_, i) => `slow${i} `) : document ? DOCUMENT_PIECES : SECTION_PIECES;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (delta: object, finish: string | null) =>
    res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  send({ role: 'assistant', content: '' }, null);
  for (const piece of pieces) {
    if (res.destroyed) return;
    if (slow) await new Promise((resolve) => setTimeout(resolve, SLOW_CHUNK_DELAY_MS));
    send({ content: piece }, null);
  }
  send({}, 'stop');
  res.end('data: [DONE]\n\n');
}

function requestsFor(marker: string): ChatRequest[] {
  return requests.filter((body) => firstHuman(body).includes(marker));
}

function sectionInput(title: string): WriteSectionInput {
  return WriteSectionInput.parse({
    section_name: 'introduction',
    outline: { title, key_points: ['Mara arrives on the island', 'The lamp flickers'], characters: ['Mara'], conflict: 'Mara against the sea', theme: 'Duty in solitude' },
    style: 'lyrical',
    story_title: 'The Lighthouse Keeper',
    characters: ['Old Tom'],
  });
}

let author: StoryAuthor;

describe('the LLM author against a real OpenAI-compatible server', () => {
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    author = createLlmAuthor({ baseUrl, model: 'fake-model', timeoutMs: 10_000 });
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  });

  test('it is named after its model', () => {
    assert.equal(author.name, 'llm:fake-model');
  });

  test('the outline comes back parsed and schema-valid', async () => {
    const outline = await author.outline(
      { topic: 'a lighthouse keeper', research: [{ title: 'Lamps', content: 'Fresnel lenses' }], structure: 'four_part' },
      { signal: new AbortController().signal },
    );
    assert.deepEqual(outline, OUTLINE);
    assert.equal(OutlineOutput.safeParse(outline).success, true);
    const sent = requestsFor('a lighthouse keeper');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.model, 'fake-model');
    assert.match(firstHuman(sent[0] ?? { model: '', messages: [] }), /Fresnel lenses/);
  });

  test('a section streams chunk by chunk and the chunks join to the content', async () => {
    const chunks: string[] = [];
    const result = await author.writeSection(sectionInput('Arrival'), {
      signal: new AbortController().signal,
      onChunk: (chunk) => chunks.push(chunk),
    });
    assert.ok(chunks.length > 1, `expected several chunks, got ${chunks.length}`);
    assert.deepEqual(chunks, SECTION_PIECES);
    assert.equal(result.content, chunks.join(''));
    assert.equal(result.word_count, 8);
    assert.equal(result.reading_time, '1 min');
    const sent = requestsFor('Section title: Arrival');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.stream, true);
    const prompt = firstHuman(sent[0] ?? { model: '', messages: [] });
    for (const expected of ['introduction', 'The Lighthouse Keeper', 'The lamp flickers', 'Old Tom', 'Mara', 'Mara against the sea', 'Duty in solitude', 'lyrical']) {
      assert.ok(prompt.includes(expected), `the section prompt lacks "${expected}"`);
    }
  });

  test('an AceFlow stage document streams from the template, the analysis, earlier stages and feedback', async () => {
    const input = StageDocumentInput.parse({
      stage: 's5_test_report',
      project_name: 'task-manager',
      template: '# Test Report for {{project_name}}\n\n## Failures and Defects\n{{defects}}\n',
      placeholders: ['project_name', 'defects'],
      sections: ['Failures and Defects'],
      previous_outputs: { s4_implementation: { key_points: ['Tokens are refreshed on expiry'], content: 'The session layer refreshes tokens.' } },
      analysis: { project_info: { name: 'TaskManager', file_count: 42 } },
      instructions: { task_description: 'Report the results of the test run.', quality_requirements: ['Every defect has a severity'] },
      feedback: { missing_elements: ['coverage figures'], quality_issues: [], defects: [{ description: 'Login fails with an expired token', severity: 'high' }] },
    });
    const chunks: string[] = [];
    const result = await author.writeStageDocument?.(input, { signal: new AbortController().signal, onChunk: (chunk) => chunks.push(chunk) });
    assert.deepEqual(chunks, DOCUMENT_PIECES);
    assert.equal(result?.content, DOCUMENT_PIECES.join(''));
    assert.equal(result?.word_count, countWords(DOCUMENT_PIECES.join('')), 'counted from the text, as a section is');
    const sent = requestsFor('s5_test_report');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.stream, true);
    assert.match(sent[0]?.messages[0]?.content ?? '', /software engineer/);
    const prompt = firstHuman(sent[0] ?? { model: '', messages: [] });
    for (const expected of ['task-manager', '{{defects}}', 'Failures and Defects', 'Report the results of the test run.', 'Every defect has a severity', 'TaskManager', 'Tokens are refreshed on expiry', 'The session layer refreshes tokens.', 'coverage figures', '[high] Login fails with an expired token']) {
      assert.ok(prompt.includes(expected), `the stage document prompt lacks "${expected}"`);
    }
  });

  test('invalid JSON once is repaired by a retry', async () => {
    const outline = await author.outline(
      { topic: 'repair-me', research: [], structure: 'four_part' },
      { signal: new AbortController().signal },
    );
    assert.deepEqual(outline, OUTLINE);
    const sent = requestsFor('repair-me');
    assert.equal(sent.length, 2);
    const repair = sent[1]?.messages ?? [];
    assert.match(repair.at(-1)?.content ?? '', /not JSON/);
    assert.equal(repair.at(-2)?.role, 'assistant');
  });

  test('a reply that never matches rejects with a clear error', async () => {
    await assert.rejects(
      author.outline({ topic: 'hopeless', research: [], structure: 'four_part' }, { signal: new AbortController().signal }),
      (error: unknown) => error instanceof Error && /did not match/.test(error.message) && /sections/.test(error.message),
    );
    assert.equal(requestsFor('hopeless').length, 2);
  });

  test('polish counts the words of the polished text itself', async () => {
    const result = await author.polish(
      { draft: 'The cat sat.', focus_areas: ['pacing'], target_audience: 'children' },
      { signal: new AbortController().signal },
    );
    assert.equal(result.polished_content, 'The cat 猫が座った。\n\nQuietly — now.');
    assert.deepEqual(result.improvements, [{ type: 'pacing', count: 2 }]);
    assert.equal(result.word_count, 9, 'four whitespace words plus five CJK characters');
  });

  test('aborting the signal during a slow stream rejects quickly', async () => {
    const abort = new AbortController();
    const chunks: string[] = [];
    let firstChunk: () => void = () => undefined;
    const gotChunk = new Promise<void>((resolve) => (firstChunk = resolve));
    const writing = author.writeSection(sectionInput('SLOW'), {
      signal: abort.signal,
      onChunk: (chunk) => {
        chunks.push(chunk);
        firstChunk();
      },
    });
    writing.catch(() => undefined);
    await gotChunk;
    const abortedAt = Date.now();
    abort.abort();
    await assert.rejects(writing, { name: 'AbortError' });
    const elapsed = Date.now() - abortedAt;
    assert.ok(elapsed < 1000, `took ${elapsed} ms to stop after the abort`);
    assert.ok(chunks.length < 40, 'the whole stream arrived despite the abort');
  });
});
