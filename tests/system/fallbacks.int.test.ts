/**
 * `on_error` fallbacks end to end: a step that fails for good (here a child pipeline whose run
 * fails) hands over to its fallback, which reads the failure as `error`; the fallback's output
 * stands for the failed step's, and the run goes on and completes. Registration checks them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { finishedRun, putPipeline, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
const topicInput = { type: 'object', required: ['topic'], properties: { topic: { type: 'string' }, depth: { type: 'integer' } } };

before(async () => {
  stack = await startTestStack({ label: 'fallbacks' });
  // Depth 50 is past the search tool's bound: the tool refuses it, and the run fails for good.
  await registerPipeline(stack, { name: 'fb-failing', input: topicInput, steps: { boom: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 'input.depth' } } } });
  await registerPipeline(stack, {
    name: 'fb-echo',
    input: topicInput,
    steps: { look: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 1 } } },
    output: '{ "topic": input.topic }',
  });
});
after(() => stack.close());

const parent = (name: string, options: { fallback: boolean }) => ({
  name,
  input: topicInput,
  steps: {
    research: { pipeline: 'fb-failing', args: { topic: 'input.topic', depth: 50 }, ...(options.fallback ? { on_error: 'rescue' } : {}) },
    ...(options.fallback ? { rescue: { pipeline: 'fb-echo', args: { topic: "'rescued after ' & error.code & ' in ' & error.step" } } } : {}),
    write: { tool: 'search_relevant_information', needs: ['research'], args: { topic: 'steps.research.topic', depth: 1 } },
  },
  output: '{ "research": steps.research, "written": $count(steps.write.results) }',
});

test("the child fails, the parent's fallback runs reading the error, and the run completes with its output standing in", async () => {
  await registerPipeline(stack, parent('fb-parent', { fallback: true }));
  const runId = await startRun(stack, 'fb-parent', { topic: 'sluices' });
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`), (event) => event.event === 'done');
  const run = await finishedRun(stack, runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const failed = stageOf(run, 'research') as RunBody['stages'][number] & { error: { details?: { error?: { code: string } } } };
  assert.equal(failed.status, 'failed');
  assert.equal(failed.fallback, 'rescue');
  assert.equal(failed.error?.code, 'child_run_failed');
  assert.equal(failed.error.details?.error?.code, 'invalid_parameters', JSON.stringify(failed.error));
  assert.equal(stageOf(run, 'rescue')?.status, 'completed');
  const result = run.result as { research: { topic: string }; written: number };
  assert.deepEqual(result.research, { topic: 'rescued after child_run_failed in research' }, "downstream reads the fallback's output as the failed step's");
  assert.ok(result.written > 0);
  // Every stage counted: the three steps, the fallback among them once taken.
  const view = await stack.json<{ progress: number; stages: unknown[] }>(`/v1/runs/${runId}`);
  assert.equal(view.body.stages.length, 3);
  assert.equal(view.body.progress, 100);
  const last = events.filter((e) => e.event === 'stage').map((e) => JSON.parse(e.data) as { progress?: { completed_stages: number; total_stages: number } }).filter((e) => e.progress).at(-1);
  assert.deepEqual(last?.progress && { c: last.progress.completed_stages, t: last.progress.total_stages }, { c: 3, t: 3 });
  // The stand-in is told: an event of the failed stage with the progress it made, after the fallback completed.
  const stageEvents = events.filter((e) => e.event === 'stage').map((e) => JSON.parse(e.data) as { stage: string; status: string; progress?: unknown });
  const rescued = stageEvents.findIndex((e) => e.stage === 'rescue' && e.status === 'completed');
  const stoodIn = stageEvents.findIndex((e) => e.stage === 'research' && e.progress !== undefined);
  assert.ok(rescued >= 0 && stoodIn > rescued, JSON.stringify(stageEvents));
});

test('without on_error the same failure fails the run, as before', async () => {
  await registerPipeline(stack, parent('fb-no-fallback', { fallback: false }));
  const run = await finishedRun(stack, await startRun(stack, 'fb-no-fallback', { topic: 'sluices' }));
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'child_run_failed');
  assert.equal(stageOf(run, 'research')?.status, 'failed');
  assert.equal(stageOf(run, 'research')?.fallback, undefined);
});

test("a failing last step's fallback ends the run with its output, and a fallback that fails fails the run", async () => {
  await registerPipeline(stack, {
    name: 'fb-last',
    steps: {
      only: { tool: 'search_relevant_information', args: { topic: "'x'", depth: '40 + 10' }, on_error: 'spare' },
      spare: { tool: 'search_relevant_information', args: { topic: "'spare for ' & error.step", depth: 1 } },
    },
    output: '{ "count": $count(steps.only.results), "same": steps.only = steps.spare }',
  });
  const run = await finishedRun(stack, await startRun(stack, 'fb-last', {}));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.result, { count: 1, same: true });
  await registerPipeline(stack, {
    name: 'fb-both-fail',
    steps: {
      only: { tool: 'search_relevant_information', args: { topic: "'x'", depth: '40 + 10' }, on_error: 'spare' },
      spare: { tool: 'search_relevant_information', args: { topic: "'y'", depth: '30 + 30' } },
    },
  });
  const failed = await finishedRun(stack, await startRun(stack, 'fb-both-fail', {}));
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error?.stage, 'spare');
  assert.equal(stageOf(failed, 'only')?.status, 'failed');
});

test('a step failing with a retryable error runs its fallback only after its last attempt', async (t) => {
  stack.tools.services.search.faults.failureRate = 1;
  t.after(() => (stack.tools.services.search.faults.failureRate = 0));
  await registerPipeline(stack, {
    name: 'fb-retried',
    steps: {
      flaky: { tool: 'search_relevant_information', args: { topic: "'flaky'", depth: 1 }, retry: { attempts: 2, backoff: '50ms' }, on_error: 'spare' },
      spare: { tool: 'generate_structured_outline', args: { topic: "'spare after ' & error.code" } },
    },
    output: '{ "title": steps.flaky.title }',
  });
  const run = await finishedRun(stack, await startRun(stack, 'fb-retried', {}));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const flaky = stageOf(run, 'flaky');
  assert.equal(flaky?.status, 'failed');
  assert.equal(flaky?.attempts, 2, 'both attempts were spent first');
  assert.equal(flaky?.fallback, 'spare');
  assert.equal(typeof (run.result as { title?: unknown }).title, 'string');
});

test('a step that succeeds never runs its fallback, which is then no stage of the run', async () => {
  await registerPipeline(stack, {
    name: 'fb-unneeded',
    steps: {
      fine: { tool: 'search_relevant_information', args: { topic: "'fine'", depth: 1 }, on_error: 'spare' },
      spare: { tool: 'search_relevant_information', args: { topic: "'spare'", depth: 1 } },
    },
  });
  const run = await finishedRun(stack, await startRun(stack, 'fb-unneeded', {}));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.stages.map((s) => [s.name, s.status]), [['fine', 'completed']]);
  const view = await stack.json<{ progress: number }>(`/v1/runs/${run.run_id}`);
  assert.equal(view.body.progress, 100);
});

test('registration refuses on_error naming a missing step or itself, a fallback cycle, and fallbacks outside their step', async () => {
  const { status, body } = await putPipeline(stack, {
    name: 'fb-bad',
    steps: {
      a: { tool: 'search_relevant_information', args: { topic: "'a'" }, on_error: 'nowhere' },
      b: { tool: 'search_relevant_information', args: { topic: "'b'" }, on_error: 'b' },
      c: { tool: 'search_relevant_information', args: { topic: "'c'" }, on_error: 'd' },
      d: { tool: 'search_relevant_information', args: { topic: "'d'" }, on_error: 'c' },
      e: { tool: 'search_relevant_information', args: { topic: "'e'" }, on_error: 'f' },
      f: { tool: 'search_relevant_information', args: { topic: "'f'" }, needs: ['a'] },
      g: { tool: 'search_relevant_information', args: { topic: "'g'" }, needs: ['f'] },
    },
  });
  assert.equal(status, 400);
  const problems = body.error?.details.problems ?? [];
  const at = (path: string) => problems.filter((p) => p.path === path).map((p) => p.message).join(' | ');
  assert.match(at('steps.a.on_error'), /"nowhere", which is not a step/);
  assert.match(at('steps.b.on_error'), /its own fallback/);
  assert.match(`${at('steps.c.on_error')} ${at('steps.d.on_error')}`, /fallback cycle: (c → d → c|d → c → d)/);
  assert.match(at('steps.f.needs.0'), /may need only what e needs/);
  assert.match(at('steps.g.needs.0'), /f runs only as a fallback/);
});
