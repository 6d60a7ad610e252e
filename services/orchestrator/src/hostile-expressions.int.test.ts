/**
 * Expressions as an attacker with a valid key writes them: each fails its step (or its run) with
 * expression_budget_exceeded naming the field, while the process that runs the API and the
 * workers keeps answering and a story started meanwhile completes.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { closeExpressionSandbox, configureExpressionSandbox } from '@switchyard/pipeline';
import { finishedRun, putPipeline, registerPipeline, startRun, type RunBody } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;

before(async () => {
  await configureExpressionSandbox({ budget: { timeoutMs: 400 } });
  stack = await startTestStack({ label: 'hostile-expressions' });
});
after(async () => {
  await stack.close();
  await closeExpressionSandbox();
});

const LOOP = '($f := function($n){ $f($n+1) }; $f(0))';
const DEEP = '($f := function($n){ 1 + $f($n+1) }; $f(0))';

/** One hostile expression per pipeline, at the place named. */
const ATTACKS: Array<{ name: string; place: string; definition: Record<string, unknown>; input?: Record<string, unknown> }> = [
  { name: 'loop-in-args', place: 'steps.find.args.topic', definition: { steps: { find: { tool: 'search_relevant_information', args: { topic: LOOP, depth: 1 } } } } },
  { name: 'deep-in-args', place: 'steps.find.args.topic', definition: { steps: { find: { tool: 'search_relevant_information', args: { topic: DEEP, depth: 1 } } } } },
  // A map over the input alone is evaluated when the run is created, in the orchestrator.
  { name: 'loop-in-map', place: 'steps.each.map', definition: { steps: { each: { tool: 'search_relevant_information', map: `input.n ? ${LOOP}`, args: { topic: 'item', depth: 1 } } } }, input: { n: 1 } },
  { name: 'huge-map', place: 'steps.each.map', definition: { steps: { each: { tool: 'search_relevant_information', map: '$map([1..3000000], function($v){ $string($v) })', args: { topic: 'item', depth: 1 } } } } },
  { name: 'loop-in-when', place: 'steps.find.when', definition: { steps: { find: { tool: 'search_relevant_information', when: LOOP, args: { topic: "'x'", depth: 1 } } } } },
  { name: 'loop-in-output', place: 'output', definition: { steps: { find: { tool: 'search_relevant_information', args: { topic: "'x'", depth: 1 } } }, output: LOOP } },
];

test('every hostile expression fails with expression_budget_exceeded naming its field, the process answering throughout and a story completing', async () => {
  for (const attack of ATTACKS) await registerPipeline(stack, { name: attack.name, ...attack.definition });
  await registerPipeline(stack, {
    name: 'redos-in-args',
    steps: { find: { tool: 'search_relevant_information', args: { topic: "'matches: ' & $string($count($match(input.s, /^(a+)+$/)))", depth: 1 } } },
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let slowestHealthMs = 0;
  let polling = true;
  const health = (async () => {
    while (polling) {
      const started = performance.now();
      const answer = await stack.request('/health');
      await answer.arrayBuffer();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const runIds = await Promise.all(ATTACKS.map((attack) => startRun(stack, attack.name, attack.input ?? {})));
  // A regex that backtracks for seconds in JavaScript runs in linear time: this run completes.
  const redos = await startRun(stack, 'redos-in-args', { s: `${'a'.repeat(29)}b` });
  const canary = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a canary in a coal mine' }) });
  const runs = await Promise.all(runIds.map((id) => finishedRun(stack, id, 60_000)));
  const story = await finishedRun(stack, canary.body.run_id, 60_000);
  const linear = await finishedRun(stack, redos, 60_000);
  polling = false;
  await health;
  delay.disable();
  const figures = {
    runs: runs.length,
    failed_on_budget: runs.filter((run) => budgetErrorOf(run) !== undefined).length,
    event_loop_p99_ms: Math.round(delay.percentile(99) / 1e5) / 10,
    event_loop_max_ms: Math.round(delay.max / 1e5) / 10,
    slowest_health_ms: Math.round(slowestHealthMs),
    canary: story.status,
    redos_run: linear.status,
  };
  process.stdout.write(`# hostile expressions: ${JSON.stringify(figures)}\n`);
  ATTACKS.forEach((attack, i) => {
    const run = runs[i] as RunBody;
    assert.equal(run.status, 'failed', `${attack.name}: ${run.status}`);
    const error = budgetErrorOf(run);
    assert.ok(error, `${attack.name} failed with ${JSON.stringify(run.error)} / ${JSON.stringify(run.stages.map((s) => s.error))}`);
    assert.ok(error.message.includes(attack.place), `${attack.name}: "${error.message}" names ${attack.place}`);
  });
  assert.equal(story.status, 'completed');
  assert.equal(linear.status, 'completed', JSON.stringify(linear.error));
  assert.ok(figures.event_loop_p99_ms < 100, `event-loop p99 ${figures.event_loop_p99_ms} ms`);
});

/** The run's or one of its stages' error when it is a budget's. */
function budgetErrorOf(run: RunBody): { code: string; message: string } | undefined {
  const errors = [run.error, ...run.stages.map((stage) => stage.error)];
  return errors.find((error): error is { code: string; message: string } => error?.code === 'expression_budget_exceeded');
}

test('a regex RE2 cannot run in linear time is refused at registration, naming its place', async () => {
  const { status, body } = await putPipeline(stack, { name: 'backreference', steps: { find: { tool: 'search_relevant_information', args: { topic: "$replace(input.s, /(a)\\1/, 'b')", depth: 1 } } } });
  assert.equal(status, 400);
  const problem = body.error?.details.problems.find((p) => p.path === 'steps.find.args.topic');
  assert.ok(problem, JSON.stringify(body));
  assert.match(problem.message, /backreferences/);
});
