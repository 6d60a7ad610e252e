/**
 * Expressions as an attacker with a valid key writes them: each fails its step (or its run) with
 * expression_budget_exceeded naming the field, while the process that runs the API and the
 * workers keeps answering and a story started meanwhile completes.
 */
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { closeExpressionSandbox, configureExpressionSandbox } from '@switchyard/pipeline';
import { finishedRun, putPipeline, registerPipeline, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { HOSTILE_EXPRESSIONS, HOSTILE_REQUESTS, LINEAR_REGEX } from '../../services/orchestrator/src/testing/hostile.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
/** What one evaluation may take: an expression evaluated in this process would block it at least this long. */
const BUDGET_MS = 1000;

before(async () => {
  await configureExpressionSandbox({ budget: { timeoutMs: BUDGET_MS } });
  stack = await startTestStack({ label: 'hostile-expressions' });
});
after(async () => {
  await stack.close();
  await closeExpressionSandbox();
});

test('every hostile expression fails with expression_budget_exceeded naming its field, the process answering throughout and a story completing', async () => {
  for (const attack of HOSTILE_EXPRESSIONS) await registerPipeline(stack, { name: attack.name, ...attack.definition });
  await registerPipeline(stack, { name: LINEAR_REGEX.name, ...LINEAR_REGEX.definition });
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
  const runIds = await Promise.all(HOSTILE_EXPRESSIONS.map((attack) => startRun(stack, attack.name, attack.input ?? {})));
  // A regex that backtracks for seconds in JavaScript runs in linear time: this run completes.
  const redos = await startRun(stack, LINEAR_REGEX.name, LINEAR_REGEX.input);
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
  HOSTILE_EXPRESSIONS.forEach((attack, i) => {
    const run = runs[i] as RunBody;
    assert.equal(run.status, 'failed', `${attack.name}: ${run.status}`);
    const error = budgetErrorOf(run);
    assert.ok(error, `${attack.name} failed with ${JSON.stringify(run.error)} / ${JSON.stringify(run.stages.map((s) => s.error))}`);
    assert.ok(error.message.includes(attack.place), `${attack.name}: "${error.message}" names ${attack.place}`);
    if (attack.definition.steps && JSON.stringify(attack.definition).includes('expression_timeout')) assert.match(error.message, /200 ms/, `${attack.name} keeps its step's budget`);
  });
  assert.equal(story.status, 'completed');
  assert.equal(linear.status, 'completed', JSON.stringify(linear.error));
  // The p99 is printed: on a loaded 2-core machine the scheduler alone delays the loop by 100 ms
  // and more. What an evaluation in this process would cause is a stall as long as its budget.
  assert.ok(figures.event_loop_max_ms < BUDGET_MS, `event-loop max ${figures.event_loop_max_ms} ms`);
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

test('every hostile request is answered with its own status, never a 5xx, the process answering meanwhile', async () => {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const answers = await Promise.all(
    HOSTILE_REQUESTS.map(async (probe) => {
      const res = await stack.request(probe.path, { method: probe.method, ...(probe.body ? { body: probe.body(), headers: { 'content-type': probe.contentType ?? 'application/json' } } : {}) });
      await res.arrayBuffer();
      return `${probe.name}: ${res.status}`;
    }),
  );
  delay.disable();
  process.stdout.write(`# hostile requests: event loop max ${(delay.max / 1e6).toFixed(1)} ms\n`);
  assert.deepEqual(answers, HOSTILE_REQUESTS.map((probe) => `${probe.name}: ${probe.status}`));
  assert.ok(delay.max / 1e6 < BUDGET_MS, `event-loop max ${delay.max / 1e6} ms`);
});
