import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressBoard } from './progress-board.js';

function capture(tty: boolean, columns?: number) {
  const chunks: string[] = [];
  return { out: { write: (text: string) => chunks.push(text), isTTY: tty, columns }, text: () => chunks.join(''), chunks };
}

test('without a terminal, a run gets a line when its status, stage or percentage changes, not per chunk of text', () => {
  const { out, text } = capture(false);
  const board = new ProgressBoard(out, [{ label: 'a keeper', status: 'queued', progress: 0 }]);
  board.update(0, { label: 'a keeper', status: 'running', progress: 0, stage: 'search' });
  board.update(0, { label: 'a keeper', status: 'running', progress: 0, stage: 'search' });
  board.update(0, { label: 'a keeper', status: 'running', progress: 0, stage: undefined });
  board.update(0, { label: 'a keeper', status: 'running', progress: 57, stage: 'write.climax', words: 10 });
  board.update(0, { label: 'a keeper', status: 'running', progress: 57, stage: 'write.climax', words: 250 });
  board.update(0, { label: 'a keeper', status: 'completed', progress: 100, words: 900 });
  board.close();
  const lines = text().trimEnd().split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0] ?? '', /0% queued/);
  assert.match(lines[1] ?? '', /0% running +search/);
  assert.match(lines[2] ?? '', /57% running +write\.climax +10 words/);
  assert.match(lines[3] ?? '', /100% completed +900 words +a keeper$/);
  assert.ok(!text().includes('\x1b['), 'no terminal codes in a log');
});

test('on a terminal the lines are redrawn in place, cut to the width, and a note goes above them', async () => {
  const { out, text, chunks } = capture(true, 60);
  const board = new ProgressBoard(out, [{ label: 'one', status: 'queued', progress: 0 }, { label: 'two', status: 'queued', progress: 0 }], { intervalMs: 5 });
  const first = chunks.length;
  board.update(1, { label: 'two', status: 'running', progress: 50 });
  board.update(1, { label: 'two', status: 'running', progress: 60 });
  assert.equal(chunks.length, first, 'updates are drawn together, not one by one');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(chunks.length, first + 1);
  assert.ok(chunks.at(-1)?.startsWith('\x1b[2A'), 'the cursor goes back up over both lines');
  assert.match(chunks.at(-1) ?? '', /60% running/);
  board.note('a warning');
  board.close();
  // What a terminal shows, without the cursor codes: each ESC starts a `[<n><letter>` sequence.
  const visible = text()
    .split('\u001b')
    .map((part, i) => (i === 0 ? part : part.replace(/^\[\d*[A-Za-z]/, '')))
    .join('');
  assert.ok(visible.includes('a warning\n'));
  for (const line of visible.split('\n')) assert.ok(line.length <= 59, `"${line}" fits in 60 columns`);
});
