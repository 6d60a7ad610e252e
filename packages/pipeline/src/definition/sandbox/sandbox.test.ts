import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ExpressionSandbox, SandboxEvaluationError } from './sandbox.js';
import { jsonFitsIn } from './json-size.js';

/** An evaluation in this process would block it at least this long. */
const BUDGET_MS = 1000;
const sandbox = new ExpressionSandbox({ budget: { timeoutMs: BUDGET_MS, memoryMb: 96 } });
after(() => sandbox.close());

/** The budget an evaluation ran past, or 'none' when it gave a value. */
async function overrun(source: string, context: Record<string, unknown> = {}): Promise<string> {
  try {
    await sandbox.evaluate(source, context);
    return 'none';
  } catch (error) {
    assert.ok(error instanceof SandboxEvaluationError, String(error));
    return error.budget ?? `error: ${error.message}`;
  }
}

test('an expression gives its value as JSON keeps it', async () => {
  assert.equal(await sandbox.evaluate('input.a + 1', { input: { a: 2 } }), 3);
  assert.deepEqual(await sandbox.evaluate('[1..3].($ * 2)', {}), [2, 4, 6]);
  assert.deepEqual(await sandbox.evaluate('{"f": function($x){ $x }, "n": 1}', {}), { n: 1 });
  assert.equal(await sandbox.evaluate('input.missing', { input: {} }), undefined);
});

test('a JSONata error comes back as an error that is not a budget', async () => {
  assert.match(await overrun('$number("x")'), /^error: /);
});

test('every hostile expression ends at a budget while the caller keeps answering', async () => {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const attacks: Array<[string, string]> = [
    ['($f := function($n){ $f($n+1) }; $f(0))', 'time'],
    ['($f := function($n){ 1 + $f($n+1) }; $f(0))', 'depth'],
    ['$map([1..3000000], function($v){ $v * 2 })', 'sequence'],
    ['$pad("x", 400000000)', 'result_size'],
    ['($a := [1..900000]; $a.[$, $, $, $, $])', 'time'],
  ];
  const seen = await Promise.all(attacks.map(([source]) => overrun(source)));
  delay.disable();
  assert.deepEqual(seen, attacks.map(([, kind]) => kind));
  const maxMs = delay.max / 1e6;
  process.stdout.write(`# caller's event-loop delay while ${attacks.length} attacks ran: p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, max ${maxMs.toFixed(1)} ms\n`);
  // A loaded machine delays any loop by tens of ms; an evaluation here would stall it for its budget.
  assert.ok(maxMs < BUDGET_MS / 2, `max ${maxMs} ms`);
  assert.equal(await sandbox.evaluate('1 + 1', {}), 2, 'the sandbox still evaluates after the attacks');
});

test("an evaluation's own time budget is kept when below the sandbox's, and cannot raise it", async () => {
  const loop = '($f := function($n){ $f($n+1) }; $f(0))';
  await assert.rejects(sandbox.evaluate(loop, {}, 100), (error: unknown) => error instanceof SandboxEvaluationError && error.budget === 'time' && /100 ms/.test(error.message));
  await assert.rejects(sandbox.evaluate(loop, {}, 60_000), (error: unknown) => error instanceof SandboxEvaluationError && new RegExp(`${BUDGET_MS} ms`).test(error.message));
});

test('a regex that backtracks for seconds in JavaScript is answered at once, in linear time', async () => {
  const started = performance.now();
  assert.equal(await sandbox.evaluate('$count($match(input.s, /^(a+)+$/))', { input: { s: `${'a'.repeat(5000)}b` } }), 0);
  assert.equal(await sandbox.evaluate("$replace('  a lamp  ', /^\\s+|\\s+$/, '')", {}), 'a lamp');
  assert.ok(performance.now() - started < 1000);
});

test('a process that runs out of heap is replaced, and the next evaluation is answered', async () => {
  // Time enough to reach the heap limit first: each item is a fresh object.
  const small = new ExpressionSandbox({ processes: 1, budget: { timeoutMs: 30_000, memoryMb: 48 } });
  try {
    await assert.rejects(small.evaluate('[1..900000].{"k": $string($), "v": [$, $, $, $]}', {}), (error: unknown) => error instanceof SandboxEvaluationError && error.budget === 'memory');
    assert.equal(small.stats.processesReplaced, 1);
    assert.equal(await small.evaluate('"alive"', {}), 'alive');
  } finally {
    await small.close();
  }
});

test("a value's JSON size is measured without making it", () => {
  assert.equal(jsonFitsIn({ a: 'xy', b: [1, 2] }, 100), true);
  assert.equal(jsonFitsIn('x'.repeat(200), 100), false);
  const shared = ['y'.repeat(40)];
  assert.equal(jsonFitsIn([shared, shared, shared], 100), false, 'a value reached twice counts twice');
});
