import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { readSse } from './testing/events.js';
import { finishedRun, registerPipeline, stageOf, startRun, type RunBody } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;

before(async () => {
  stack = await startTestStack({ label: 'pipelines' });
});
after(async () => {
  await stack.close();
});

const search = (topic: string) => ({ tool: 'search_relevant_information', args: { topic } });
const ms = (at: string | null) => Date.parse(at ?? '');

test('steps with no path between them run in parallel, and a step that needs both waits for both', async (t) => {
  stack.tools.services.search.faults.latencyMs = 400;
  t.after(() => (stack.tools.services.search.faults.latencyMs = 0));
  await registerPipeline(stack, {
    name: 'fan-in',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: {
      left: search('input.topic'),
      right: search("input.topic & ' at night'"),
      joined: { tool: 'polish_story', needs: ['left', 'right'], args: { draft: "steps.left.results[0].snippet & '\\n\\n' & steps.right.results[0].snippet" } },
    },
    output: '{ "words": steps.joined.word_count, "from": [steps.left.metadata.total_results, steps.right.metadata.total_results] }',
  });
  const run = await finishedRun(stack, await startRun(stack, 'fan-in', { topic: 'a lighthouse' }));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const [left, right, joined] = ['left', 'right', 'joined'].map((name) => stageOf(run, name));
  assert.ok(ms(left?.started_at ?? null) < ms(right?.finished_at ?? null) && ms(right?.started_at ?? null) < ms(left?.finished_at ?? null), 'left and right overlapped');
  assert.ok(ms(joined?.started_at ?? null) >= Math.max(ms(left?.finished_at ?? null), ms(right?.finished_at ?? null)), 'joined started after both');
  assert.equal((run.result as { from: number[] }).from.length, 2);
});

const mapper = {
  name: 'mapper',
  input: { type: 'object', required: ['topics'], properties: { topics: { type: 'array', items: { type: 'string' } } } },
  steps: {
    each: { tool: 'search_relevant_information', map: 'input.topics', args: { topic: 'item', depth: 1 } },
    count: { tool: 'polish_story', needs: ['each'], args: { draft: "'Found ' & $string($count(steps.each)) & ' results lists.'" } },
  },
  output: '{ "branches": $count(steps.each), "first": steps.each[0].metadata.total_results, "summary": steps.count.polished_content }',
};

for (const size of [0, 1, 50]) {
  test(`a map over ${size} item${size === 1 ? '' : 's'} runs one branch per item and joins when every branch has ended`, async () => {
    await registerPipeline(stack, mapper);
    const topics = Array.from({ length: size }, (_, i) => `harbour number ${i}`);
    const run = await finishedRun(stack, await startRun(stack, 'mapper', { topics }), 60_000);
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    assert.equal((run.result as { branches: number }).branches, size);
    assert.match((run.result as { summary: string }).summary, new RegExp(`Found ${size} results lists`));
    const branches = run.stages.filter((s) => s.name.startsWith('each.'));
    assert.equal(branches.length, size);
    assert.ok(branches.every((s) => s.status === 'completed' && s.attempts === 1));
    // With no items the map step itself is the stage, done with an empty list.
    if (size === 0) assert.equal(stageOf(run, 'each')?.status, 'completed');
    else assert.equal(stageOf(run, 'each'), undefined);
  });
}

test('a map whose list is known only at run time fans out then: the documented review of each outline section', async () => {
  // The second example of docs/PIPELINES.md, registered as the file is, as YAML.
  const yaml = readFileSync(fileURLToPath(new URL('../../../docs/pipelines/section-review.yaml', import.meta.url)), 'utf8');
  const put = await stack.json('/v1/pipelines/section-review', { method: 'PUT', headers: { 'content-type': 'application/yaml' }, body: yaml });
  assert.ok([200, 201].includes(put.status), JSON.stringify(put.body));
  const runId = await startRun(stack, 'section-review', { topic: 'a tide clock', audience: 'young_adult' });
  const created = (await stack.json<RunBody>(`/v1/runs/${runId}`)).body;
  assert.deepEqual(created.stages.map((s) => s.name), ['outline', 'review', 'summary'], 'the branches are not known before the outline');
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.stages.map((s) => s.name), ['outline', 'review.introduction', 'review.development', 'review.climax', 'review.conclusion', 'summary']);
  const result = run.result as { sections: { name: string; reviewed: string }[]; summary: string; changes: number };
  assert.deepEqual(result.sections.map((s) => s.name), ['introduction', 'development', 'climax', 'conclusion']);
  assert.ok(result.sections.every((s) => s.reviewed.length > 0) && result.summary.length > 0);
  assert.equal(typeof result.changes, 'number');
});

test('a map whose list is not a list at run time fails the step with an error that says so', async () => {
  await registerPipeline(stack, {
    name: 'bad-map',
    steps: { each: { tool: 'search_relevant_information', map: "'just one string'", args: { topic: 'item' } } },
  });
  const run = await finishedRun(stack, await startRun(stack, 'bad-map', {}));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'map_not_a_list');
  assert.equal(run.error?.stage, 'each');
  assert.match(run.error?.message ?? '', /steps\.each\.map gave string "just one string", not a list/);
});

test('an output expression that fails at run time fails the run, its last stage completed and its output kept', async () => {
  await registerPipeline(stack, {
    name: 'bad-output',
    steps: { find: search("'a quarry'") },
    output: '$error("no output for you")',
  });
  const run = await finishedRun(stack, await startRun(stack, 'bad-output', {}));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'output_failed');
  assert.match(run.error?.message ?? '', /no output for you/);
  assert.equal(stageOf(run, 'find')?.status, 'completed');
  const redis = createRedisClient(stack.redisUrl);
  try {
    assert.equal(await redis.hexists(runKeys(stack.prefix).outputs(run.run_id), 'find'), 1, 'the last stage\'s output is kept beside the failed run');
  } finally {
    redis.disconnect();
  }
});

test('a step whose condition is false is skipped, counts as done, and the steps after it still run', async () => {
  await registerPipeline(stack, {
    name: 'maybe-polish',
    input: { type: 'object', properties: { topic: { type: 'string' }, polish: { type: 'boolean' } } },
    steps: {
      research: search('input.topic'),
      polish: { tool: 'polish_story', needs: ['research'], when: 'input.polish = true', args: { draft: 'steps.research.results[0].snippet' } },
      after: { tool: 'search_relevant_information', needs: ['polish'], args: { topic: "$exists(steps.polish) ? 'polished' : 'as found'" } },
    },
    output: '{ "polished": $exists(steps.polish), "after": steps.after.results[0].title }',
  });
  const skipped = await finishedRun(stack, await startRun(stack, 'maybe-polish', { topic: 'a quiet mill', polish: false }));
  assert.equal(skipped.status, 'completed', JSON.stringify(skipped.error));
  assert.equal(stageOf(skipped, 'polish')?.status, 'skipped');
  assert.equal(stageOf(skipped, 'after')?.status, 'completed');
  assert.equal((skipped.result as { polished: boolean }).polished, false);
  const ran = await finishedRun(stack, await startRun(stack, 'maybe-polish', { topic: 'a quiet mill', polish: true }));
  assert.equal(stageOf(ran, 'polish')?.status, 'completed');
  assert.equal((ran.result as { polished: boolean }).polished, true);
});

const loop = (until: string, max: number, onLimit: 'continue' | 'fail' = 'continue') => ({
  name: 'looping',
  steps: {
    draft: {
      tool: 'polish_story',
      args: { draft: "'Draft ' & $string(iteration) & (previous ? ' after ' & $string(previous.word_count) & ' words' : '') & '.'" },
      repeat: { until, max, on_limit: onLimit },
    },
  },
  output: '{ "text": steps.draft.polished_content }',
});

test('a loop stops as soon as its condition holds', async () => {
  await registerPipeline(stack, loop('iteration >= 2', 5));
  const run = await finishedRun(stack, await startRun(stack, 'looping', {}));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(stageOf(run, 'draft')?.iterations, 2);
  assert.match((run.result as { text: string }).text, /Draft 2 after \d+ words/);
});

test('a loop whose condition never holds stops at its bound, and fails there when told to', async () => {
  await registerPipeline(stack, loop('false', 3));
  const bounded = await finishedRun(stack, await startRun(stack, 'looping', {}));
  assert.equal(bounded.status, 'completed', JSON.stringify(bounded.error));
  assert.equal(stageOf(bounded, 'draft')?.iterations, 3);
  await registerPipeline(stack, loop('false', 2, 'fail'));
  const failed = await finishedRun(stack, await startRun(stack, 'looping', {}));
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error?.code, 'loop_limit');
  assert.equal(stageOf(failed, 'draft')?.iterations, 2);
});

/** The calls the writing service answered in `mode`, from its own metrics. */
async function writeCalls(mode: string): Promise<number> {
  const text = await (await fetch(`${stack.tools.services.writing.url}/metrics`)).text();
  let calls = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('switchyard_tool_requests_total{') && line.includes('tool="write_story_section"') && line.includes(`mode="${mode}"`)) calls += Number(line.split(' ').at(-1));
  }
  return calls;
}

for (const mode of ['sync', 'async', 'stream'] as const) {
  test(`a step in ${mode} mode calls its tool that way${mode === 'stream' ? ' and its chunks are content events' : ''}`, async () => {
    const before = { sync: await writeCalls('sync'), async: await writeCalls('async'), stream: await writeCalls('stream') };
    await registerPipeline(stack, {
      name: `write-${mode}`,
      steps: { write: { tool: 'write_story_section', mode, timeout: '20s', args: { section_name: "'climax'", outline: { title: "'The wreck'", key_points: "['a ship in trouble', 'the lamp fails']" } } } },
      output: 'steps.write',
    });
    const runId = await startRun(stack, `write-${mode}`, {});
    const run = await finishedRun(stack, runId);
    assert.equal(run.status, 'completed', JSON.stringify(run.error));
    const content = (run.result as { content: string }).content;
    assert.ok(content.length > 50);
    const chunks = (await readSse(await stack.request(`/v1/runs/${runId}/events`))).filter((e) => e.event === 'content').map((e) => (JSON.parse(e.data) as { chunk: string }).chunk);
    if (mode === 'stream') assert.equal(chunks.join(''), content);
    else assert.equal(chunks.length, 0);
    // The service itself saw one call, in that mode (the writing service streams unless told otherwise).
    for (const seen of ['sync', 'async', 'stream'] as const) assert.equal((await writeCalls(seen)) - before[seen], seen === mode ? 1 : 0, `${seen} calls`);
  });
}

test('a batch runs any registered pipeline, each item over the defaults one run\'s input', async () => {
  await registerPipeline(stack, mapper);
  const created = await stack.json<{ batch_id: string; run_ids: string[]; events_url: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'mapper', items: [{ topics: ['a'] }, { topics: ['b', 'c'] }, {}], defaults: { topics: [] } }) });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const events = await readSse(await stack.request(created.body.events_url), (e) => e.event === 'done');
  assert.equal(JSON.parse(events.at(-1)?.data ?? '{}').counts.completed, 3);
  const branches = await Promise.all(created.body.run_ids.map(async (id) => ((await stack.json<RunBody>(`/v1/runs/${id}`)).body.result as { branches: number }).branches));
  assert.deepEqual(branches, [1, 2, 0]);
  const bad = await stack.json<{ error: { code: string; details: { problems: { path: string }[] } } }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'mapper', items: [{ topics: 'no' }] }) });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.details.problems[0]?.path, 'items.0.topics');
});
