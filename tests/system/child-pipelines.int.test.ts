/**
 * Child pipeline steps (`pipeline: name`) end to end: the child is a run of its own, linked both
 * ways; its result is the step's output; cancelling the parent cancels the child at once; a batch
 * runs them; a pipeline that calls itself stops at the depth bound; registration checks them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { MAX_CHILD_DEPTH, parseDefinitionText } from '@switchyard/pipeline';
import { REPO_ROOT } from '@switchyard/redis';
import { finishedRun, putPipeline, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'child-pipelines' });
  await registerPipeline(stack, {
    name: 'cp-research',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' }, depth: { type: 'integer' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 'input.depth ? input.depth : 1' } } },
    output: '{ "topic": input.topic, "found": $count(steps.find.results) }',
  });
  await registerPipeline(stack, {
    name: 'cp-parent',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: {
      research: { pipeline: 'cp-research', args: { topic: "'child of ' & input.topic" } },
      sum: { tool: 'search_relevant_information', needs: ['research'], args: { topic: 'steps.research.topic', depth: 1 } },
    },
    output: '{ "child": steps.research, "after": $count(steps.sum.results) }',
  });
});
afterEach(() => {
  stack.tools.services.search.faults.latencyMs = 0;
});
after(() => stack.close());

type Linked = RunBody & { parent?: { run_id: string; stage: string }; stages: (RunBody['stages'][number] & { child_run?: string })[] };
const readRun = async (runId: string) => (await stack.json<Linked>(`/v1/runs/${runId}`)).body;

test("a child pipeline step runs its pipeline as a child run whose result is the step's output, linked both ways", async () => {
  const run = (await finishedRun(stack, await startRun(stack, 'cp-parent', { topic: 'canals' }))) as Linked;
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const childId = stageOf(run, 'research')?.child_run as string | undefined;
  assert.match(childId ?? '', /^run_[0-9a-f]{32}$/);
  const child = await readRun(childId as string);
  assert.equal(child.status, 'completed');
  assert.equal(child.pipeline?.name, 'cp-research');
  assert.deepEqual(child.parent, { run_id: run.run_id, stage: 'research' });
  const result = run.result as { child: { topic: string; found: number }; after: number };
  assert.deepEqual(result.child, child.result, "the step's output is the child's result");
  assert.equal(result.child.topic, 'child of canals');
  assert.ok(result.after > 0, 'the step after it read its output');
});

test('cancelling the parent cancels its child within a couple of seconds', async () => {
  stack.tools.services.search.faults.latencyMs = 20_000;
  const runId = await startRun(stack, 'cp-parent', { topic: 'weirs' });
  const childId = await waitFor(async () => stageOf(await readRun(runId), 'research')?.child_run, (id) => typeof id === 'string', 'the child run is named');
  await waitFor(() => readRun(childId as string), (child) => stageOf(child, 'find')?.status === 'running' || child.status === 'running', 'the child is running');
  const cancelledAt = Date.now();
  const cancel = await stack.json(`/v1/runs/${runId}`, { method: 'DELETE' });
  assert.equal(cancel.status, 200);
  // The cancel cascades before it answers: the parent's own step would notice only at its next look.
  const child = await readRun(childId as string);
  const took = Date.now() - cancelledAt;
  process.stdout.write(`# child cancelled ${took} ms after its parent\n`);
  assert.equal(child.status, 'cancelled');
  assert.ok(took < 2000, `${took} ms`);
  assert.equal((await readRun(runId)).status, 'cancelled');
});

test('a batch of a pipeline with a child step completes, each run with its own child', async () => {
  const items = Array.from({ length: 6 }, (_, i) => ({ topic: `lock ${i}` }));
  const created = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'cp-parent', items }) });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runs = (await Promise.all(created.body.run_ids.map((id) => finishedRun(stack, id, 60_000)))) as Linked[];
  assert.deepEqual(runs.map((r) => r.status), items.map(() => 'completed'));
  const children = new Set(runs.map((r) => stageOf(r, 'research')?.child_run));
  assert.equal(children.size, items.length, 'a child per run');
  const topics = runs.map((r) => (r.result as { child: { topic: string } }).child.topic).sort();
  assert.deepEqual(topics, items.map((item) => `child of ${item.topic}`).sort());
  const batch = await waitFor(() => stack.json<{ status: string; counts: { completed: number } }>(`/v1/batches/${created.body.batch_id}`), (b) => b.body.counts.completed === items.length, 'the batch counts its runs');
  assert.equal(batch.body.counts.completed, items.length);
});

test('a pipeline that calls itself stops at the depth bound with a clear error', async () => {
  await registerPipeline(stack, { name: 'cp-forever', steps: { again: { pipeline: 'cp-forever', args: {} } } });
  const run = await finishedRun(stack, await startRun(stack, 'cp-forever', {}), 30_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'child_run_failed');
  assert.match(run.error?.message ?? '', /child_depth_exceeded/);
  // Down the chain of children: MAX_CHILD_DEPTH levels, the last refusing to start another.
  let at = run as Linked;
  let levels = 0;
  for (let id = stageOf(at, 'again')?.child_run; id; id = stageOf(at, 'again')?.child_run) {
    at = await readRun(id);
    levels += 1;
    assert.equal(at.status, 'failed');
  }
  assert.equal(levels, MAX_CHILD_DEPTH);
  assert.equal(at.error?.code, 'child_depth_exceeded', JSON.stringify(at.error));
});

test('registration refuses an unknown pipeline, args that do not fit its input, and a step of two kinds', async () => {
  const { status, body } = await putPipeline(stack, {
    name: 'cp-bad',
    steps: {
      nowhere: { pipeline: 'no-such-pipeline', args: {} },
      old: { pipeline: 'cp-research', version: 99, args: { topic: "'x'" } },
      wrong: { pipeline: 'cp-research', args: { topic: 7, colour: "'red'" } },
      missing: { pipeline: 'cp-research', args: {} },
      both: { pipeline: 'cp-research', tool: 'search_relevant_information', args: { topic: "'x'" } },
    },
  });
  assert.equal(status, 400);
  const problems = body.error?.details.problems ?? [];
  const at = (path: string) => problems.filter((p) => p.path === path).map((p) => p.message).join(' | ');
  assert.match(at('steps.nowhere.pipeline'), /no pipeline no-such-pipeline is registered/);
  assert.match(at('steps.old.pipeline'), /no pipeline cp-research version 99/);
  assert.match(at('steps.wrong.args.topic'), /does not fit pipeline cp-research's input schema/);
  assert.match(at('steps.missing.args'), /misses topic/);
  assert.match(at('steps.both'), /exactly one of `tool`, `uses`, `agent`, `wait` and `pipeline`/);
});

test("the docs' examples of a child pipeline and of a fallback register and complete", async () => {
  const text = readFileSync(path.join(REPO_ROOT, 'docs/PIPELINES.md'), 'utf8');
  const examples = [...text.matchAll(/```yaml\n(name: (brief|brief-or-note)\n[\s\S]*?)```/g)].map((m) => parseDefinitionText(m[1] as string) as Record<string, unknown> & { name: string });
  assert.deepEqual(examples.map((e) => e.name), ['brief', 'brief-or-note']);
  for (const example of examples) {
    await registerPipeline(stack, example);
    const run = await finishedRun(stack, await startRun(stack, example.name, { topic: 'tide mills' }), 60_000);
    assert.equal(run.status, 'completed', `${example.name}: ${JSON.stringify(run.error)}`);
  }
});

test("a child's input past the run input bound fails the step with a clear error, and the API answers meanwhile", async () => {
  await registerPipeline(stack, {
    name: 'cp-huge',
    steps: { big: { pipeline: 'cp-research', args: "{ 'topic': 'x', 'padding': [1..1200].$pad('', 1000, 'y') }" } },
  });
  const runId = await startRun(stack, 'cp-huge', {});
  const health = await stack.json('/v1/runs?limit=1');
  assert.equal(health.status, 200);
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'child_input_refused', JSON.stringify(run.error));
  assert.match(run.error?.message ?? '', /larger than 1048576 bytes/);
  assert.equal(stageOf(run, 'big')?.child_run, undefined, 'no child was made');
});

test('a map step with a `when` runs its pipeline once per item, each child reading its own item, as it does without the `when`', async () => {
  // A `when` makes the list evaluated at run time and stored in the run: each branch reads its
  // item from there, also when its job comes back to look at its child.
  await registerPipeline(stack, {
    name: 'cp-map-when',
    input: { type: 'object', required: ['d'], properties: { d: { type: 'integer' } } },
    steps: { each: { map: '[1..3]', when: 'input.d < 4', pipeline: 'cp-research', args: { topic: "'item ' & $string(item)" } } },
    output: 'steps.each',
  });
  const run = (await finishedRun(stack, await startRun(stack, 'cp-map-when', { d: 1 }), 60_000)) as Linked;
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual((run.result as { topic: string }[]).map((child) => child.topic), ['item 1', 'item 2', 'item 3']);
  const skipped = await finishedRun(stack, await startRun(stack, 'cp-map-when', { d: 9 }), 60_000);
  assert.equal(skipped.status, 'completed', JSON.stringify(skipped.error));
});
