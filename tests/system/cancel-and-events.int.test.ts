import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { splitIntoChunks } from '@switchyard/tool-services';
import { countingAuthor } from '../../services/orchestrator/src/testing/authors.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const author = countingAuthor();
let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'cancel-events', author });
});
after(() => stack.close());

async function startStory(topic: string): Promise<string> {
  const { status, body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) });
  assert.equal(status, 202);
  return body.run_id;
}

test('cancelling a run while its writers stream aborts their tool calls within a second and starts no further stage', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 100;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const abortedAt: number[] = [];
  author.hooks.writeSection = (_input, options) => void options.signal.addEventListener('abort', () => abortedAt.push(Date.now()), { once: true });
  t.after(() => delete author.hooks.writeSection);
  const polishCalls = author.calls.polish;

  const runId = await startStory('a cartographer of dreams');
  const live = await stack.request(`/v1/runs/${runId}/events`);
  await readSse(live, (e) => e.event === 'content'); // a writer is streaming now
  const cancelledAt = Date.now();
  const { status, body } = await stack.json<{ status: string }>(`/v1/runs/${runId}`, { method: 'DELETE' });
  assert.equal(status, 200);
  assert.equal(body.status, 'cancelled');

  const deadline = Date.now() + 3000;
  while (abortedAt.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(abortedAt.length, 4, 'all four streaming section calls were aborted at the service');
  for (const at of abortedAt) assert.ok(at - cancelledAt < 1000, `aborted ${at - cancelledAt} ms after the cancel`);

  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.equal(events.at(-1)?.event, 'done');
  assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').status, 'cancelled');
  const run = (await stack.json<{ status: string; stages: { name: string; status: string }[] }>(`/v1/runs/${runId}`)).body;
  assert.equal(run.status, 'cancelled');
  assert.equal(run.stages.find((s) => s.name === 'polish')?.status, 'cancelled');
  assert.equal(author.calls.polish, polishCalls, 'polish never started');
});

test('events carry ids, and reconnecting with Last-Event-ID replays exactly what was missed', async () => {
  const runId = await startStory('a baker who bakes weather');
  // Follow live from the start: the stream closes by itself after `done`.
  const all = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.equal(all.at(-1)?.event, 'done');
  assert.equal(all.filter((e) => e.event === 'done').length, 1);
  assert.ok(all.every((e) => e.id && /^\d+-\d+$/.test(e.id)));
  const kinds = new Set(all.map((e) => e.event));
  for (const kind of ['stage', 'content', 'done']) assert.ok(kinds.has(kind), `has ${kind} events`);
  // Each completed stage's event carries the run's progress.
  const completions = all.filter((e) => e.event === 'stage' && JSON.parse(e.data).status === 'completed');
  const progress = completions.map((e) => JSON.parse(e.data).progress.percent as number);
  assert.equal(progress.length, 7);
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress only grows');
  assert.equal(progress.at(-1), 100);

  const cut = 7;
  const resumed = await readSse(await stack.request(`/v1/runs/${runId}/events`, { headers: { 'Last-Event-ID': all[cut - 1]?.id ?? '' } }));
  assert.deepEqual(resumed.map((e) => e.id), all.slice(cut).map((e) => e.id));
  // A client arriving after the end gets the whole history, as the first one did.
  const late = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  assert.deepEqual(late.map((e) => [e.id, e.event, e.data]), all.map((e) => [e.id, e.event, e.data]));
  // The done event brings the result, as GET /v1/runs shows it.
  const run = (await stack.json<{ result: unknown }>(`/v1/runs/${runId}`)).body;
  assert.deepEqual(JSON.parse(all.at(-1)?.data ?? '{}'), { status: 'completed', result: run.result });
});

test('a content event names its section, and the chunks of a section join to the section as written', async () => {
  const runId = await startStory('a gardener growing lanterns');
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  const run = (await stack.json<{ result: { sections: { name: string; content: string }[] } }>(`/v1/runs/${runId}`)).body;
  for (const section of run.result.sections) {
    const joined = events
      .filter((e) => e.event === 'content')
      .map((e) => JSON.parse(e.data) as { section: string; chunk: string })
      .filter((c) => c.section === section.name)
      .map((c) => c.chunk)
      .join('');
    assert.equal(joined, section.content);
  }
});

test('chunks streamed faster than the interval arrive joined in fewer content events, the text unchanged', async (t) => {
  stack.tools.services.writing.faults.chunkDelayMs = 10;
  t.after(() => (stack.tools.services.writing.faults.chunkDelayMs = 0));
  const runId = await startStory('a clockmaker who mends hours');
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  const run = (await stack.json<{ result: { sections: { name: string; content: string }[] } }>(`/v1/runs/${runId}`)).body;
  const content = events.filter((e) => e.event === 'content').map((e) => JSON.parse(e.data) as { section: string; chunk: string });
  const figures = run.result.sections.map((section) => ({ section: section.name, chunks_streamed: splitIntoChunks(section.content).length, content_events: content.filter((c) => c.section === section.name).length }));
  process.stdout.write(`# content coalescing: ${JSON.stringify(figures)}\n`);
  for (const { section, chunks_streamed, content_events } of figures) {
    assert.ok(chunks_streamed >= 6, `${section} streams enough chunks to tell (${chunks_streamed})`);
    // Paced 10 ms apart against a 50 ms interval: about one event per five chunks.
    assert.ok(content_events <= Math.ceil(chunks_streamed / 2), `${section}: ${content_events} events for ${chunks_streamed} chunks`);
    assert.equal(content.filter((c) => c.section === section).map((c) => c.chunk).join(''), run.result.sections.find((s) => s.name === section)?.content);
  }
});
