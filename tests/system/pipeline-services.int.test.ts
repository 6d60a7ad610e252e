/**
 * A pipeline over a tool service of the user's own (TOOL_SERVICES, not one of the four reference
 * services), and what a definition sets per step for its calls: `timeout`, `retry`, and an
 * Idempotency-Key on its runs and batches; a stream reset and Last-Event-ID on a pipeline of its own.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor, createToolServiceApp, defaultFaults, type ToolDefinition } from '@switchyard/tool-services';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { finishedRun, putPipeline, registerPipeline, stageOf, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TOOL_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

/** The user's service: one tool, `count_words`, that none of the reference services has. */
const tally = { faults: defaultFaults(), calls: 0 };
const countWords: ToolDefinition = {
  name: 'count_words',
  description: 'Counts the words of a text and finds its longest one.',
  input: z.strictObject({ text: z.string().min(1) }),
  streamsContent: false,
  run: async (_author, input) => {
    tally.calls += 1;
    const words = (input as { text: string }).text.split(/\s+/).filter(Boolean);
    return { words: words.length, longest: words.reduce((a, b) => (b.length > a.length ? b : a), '') };
  },
};

let server: Server;
let stack: TestStack;

before(async () => {
  const app = createToolServiceApp({ name: 'tally_service', tools: [countWords], author: createOfflineAuthor(), apiKeys: [TOOL_KEY], faults: tally.faults, logger: createLogger({ name: 'tally', level: 'silent' }) });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The breaker stays out of the way: these tests make calls fail on purpose.
  stack = await startTestStack({ label: 'pipeline-services', toolEnv: { TOOL_SERVICES: JSON.stringify({ tally: url }) }, breaker: { minimumCalls: 1000 } });
});
after(async () => {
  await stack.close();
  await new Promise((resolve) => server.close(resolve));
});

const words = {
  name: 'word-tally',
  input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
  steps: {
    find: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 2 } },
    count: { tool: 'count_words', needs: ['find'], args: { text: "$join(steps.find.results.snippet, ' ')" } },
  },
  output: '{ "text": $join(steps.find.results.snippet, \' \'), "words": steps.count.words, "longest": steps.count.longest }',
};

test("a pipeline over a tool service of the user's own is checked against the tools it publishes, and runs", async () => {
  const refused = await putPipeline(stack, { ...words, name: 'word-tally-bad', steps: { ...words.steps, count: { ...words.steps.count, args: { text: 42 } } } });
  assert.equal(refused.status, 400);
  assert.ok(refused.body.error?.details.problems.some((p) => p.path === 'steps.count.args.text'), JSON.stringify(refused.body));
  const unknown = await putPipeline(stack, { name: 'word-tally-unknown', steps: { count: { service: 'tally', tool: 'count_letters', args: { text: "'a b'" } } } });
  assert.equal(unknown.status, 400);
  assert.ok(unknown.body.error?.details.problems.some((p) => p.path.startsWith('steps.count')), JSON.stringify(unknown.body));

  await registerPipeline(stack, words);
  const callsBefore = tally.calls;
  const run = await finishedRun(stack, await startRun(stack, 'word-tally', { topic: 'a lighthouse keeper' }));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const result = run.result as { text: string; words: number; longest: string };
  assert.ok(result.words > 5, JSON.stringify(result));
  assert.equal(result.words, result.text.split(/\s+/).filter(Boolean).length);
  assert.ok(result.text.includes(result.longest));
  assert.equal(tally.calls - callsBefore, 1, 'the step called the user\'s service once');
});

const slowCount = (name: string, step: Record<string, unknown>) => ({ name, steps: { count: { tool: 'count_words', args: { text: "'one two three'" }, ...step } }, output: 'steps.count' });

test("a step's timeout ends each of its attempts that runs over it, and its retry sets how many it gets", async (t) => {
  // Slower than the step allows, well within the service's own configured timeout (30 s).
  tally.faults.latencyMs = 1500;
  t.after(() => (tally.faults.latencyMs = 0));
  await registerPipeline(stack, slowCount('count-in-time', { timeout: '200ms', retry: { attempts: 2, backoff: '50ms' } }));
  const run = await finishedRun(stack, await startRun(stack, 'count-in-time', {}));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'timeout', JSON.stringify(run.error));
  assert.match(run.error?.message ?? '', /within 200 ms/);
  assert.equal(stageOf(run, 'count')?.attempts, 2);
});

test("a step's retry attempts bound how often a failing call is tried again", async (t) => {
  tally.faults.failureRate = 1;
  t.after(() => (tally.faults.failureRate = 0));
  for (const attempts of [1, 3]) {
    await registerPipeline(stack, slowCount(`count-tries-${attempts}`, { retry: { attempts, backoff: '50ms' } }));
    const run = await finishedRun(stack, await startRun(stack, `count-tries-${attempts}`, {}));
    assert.equal(run.status, 'failed');
    assert.equal(run.error?.code, 'service_unavailable', JSON.stringify(run.error));
    assert.equal(stageOf(run, 'count')?.attempts, attempts);
  }
});

test('a run of a pipeline started again with its Idempotency-Key is the same run; another input with that key is refused with 409', async () => {
  await registerPipeline(stack, words);
  const headers = { 'Idempotency-Key': 'tally-7' };
  const body = JSON.stringify({ topic: 'a salt marsh' });
  const first = await stack.json<{ run_id: string }>('/v1/pipelines/word-tally/runs', { method: 'POST', headers, body });
  const again = await stack.json<{ run_id: string }>('/v1/pipelines/word-tally/runs', { method: 'POST', headers, body });
  assert.equal(first.status, 202);
  assert.equal(again.status, 202);
  assert.equal(again.body.run_id, first.body.run_id);
  const other = await stack.json<{ error: { code: string } }>('/v1/pipelines/word-tally/runs', { method: 'POST', headers, body: JSON.stringify({ topic: 'a dry plain' }) });
  assert.equal(other.status, 409);
  assert.equal(other.body.error.code, 'idempotency_conflict');
  assert.equal((await finishedRun(stack, first.body.run_id)).status, 'completed');
});

test('a batch of a pipeline sent again with its Idempotency-Key is the same batch, with the same runs', async () => {
  await registerPipeline(stack, words);
  const headers = { 'Idempotency-Key': 'tally-batch-3' };
  const body = JSON.stringify({ pipeline: 'word-tally', items: [{ topic: 'a reed bed' }, { topic: 'a shingle spit' }] });
  const first = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', headers, body });
  const again = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', headers, body });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  assert.equal(again.body.batch_id, first.body.batch_id);
  assert.deepEqual(again.body.run_ids, first.body.run_ids);
  const events = await readSse(await stack.request(`/v1/batches/${first.body.batch_id}/events`), (e) => e.event === 'done');
  assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').counts.completed, 2);
});

test("a user pipeline's streamed branch cut mid-stream starts over with a reset, and a client resuming with Last-Event-ID gets exactly what it missed", async (t) => {
  Object.assign(stack.tools.services.writing.faults, { streamCutAfterChunks: 2, streamCutsLeft: 1 });
  t.after(() => Object.assign(stack.tools.services.writing.faults, { streamCutAfterChunks: null, streamCutsLeft: null }));
  await registerPipeline(stack, {
    name: 'tally-stream',
    steps: {
      write: { tool: 'write_story_section', mode: 'stream', map: "['climax', 'conclusion']", args: { section_name: 'item', outline: { title: "'The wreck'", key_points: "['a ship in trouble', 'the lamp fails']" } } },
      count: { tool: 'count_words', needs: ['write'], args: { text: "$join(steps.write.content, ' ')" } },
    },
    output: '{ "sections": steps.write.content, "words": steps.count.words }',
  });
  const runId = await startRun(stack, 'tally-stream', {});
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`));
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'completed', JSON.stringify({ error: run.error, stages: run.stages }));
  const resets = events.filter((e) => e.event === 'reset').map((e) => (JSON.parse(e.data) as { section: string }).section);
  assert.equal(resets.length, 1);
  const resetAt = events.findIndex((e) => e.event === 'reset');
  const [cutSection] = resets;
  const afterReset = events.slice(resetAt).filter((e) => e.event === 'content' && JSON.parse(e.data).section === cutSection).map((e) => JSON.parse(e.data).chunk as string);
  const sections = (run.result as { sections: string[] }).sections;
  assert.equal(afterReset.join(''), sections[['climax', 'conclusion'].indexOf(cutSection ?? '')], 'what streams after the reset is the section as written');

  const cut = Math.floor(events.length / 2);
  const resumed = await readSse(await stack.request(`/v1/runs/${runId}/events`, { headers: { 'Last-Event-ID': events[cut - 1]?.id ?? '' } }));
  assert.deepEqual(resumed.map((e) => e.id), events.slice(cut).map((e) => e.id));
});
