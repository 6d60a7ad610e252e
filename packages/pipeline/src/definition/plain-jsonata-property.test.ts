import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePlain } from './plain-jsonata.js';
import { checkPlainAgainstJsonata, describeCounts, tooLittleTested, type PlainCompiler } from './testing/plain-jsonata-property.js';

/** Fixed, so that `npm test` tries the same cases every time; `npm run chaos -- plain-jsonata` tries new ones. */
const SEED = 20261126;
const RUNS = 2000;

test(`on ${RUNS} generated expressions and contexts, the plain-JSONata compiler gives what JSONata gives (seed ${SEED})`, async () => {
  const report = await checkPlainAgainstJsonata({ seed: SEED, numRuns: RUNS });
  console.log(describeCounts(report.counts));
  assert.equal(report.failure, undefined, report.failure);
  assert.equal(tooLittleTested(report.counts), undefined, describeCounts(report.counts));
});

test('the property finds a compiler that joins values into a string its own way, and shrinks it to a small case', async () => {
  // `&` of any value as JavaScript writes it: JSONata writes numbers to 15 significant digits and the rest as JSON.
  const joinsNumbers: PlainCompiler = (ast) => {
    const node = ast as { type?: string; value?: unknown; lhs?: unknown; rhs?: unknown };
    if (node.type !== 'binary' || node.value !== '&') return compilePlain(ast);
    const [lhs, rhs] = [compilePlain(node.lhs), compilePlain(node.rhs)];
    if (!lhs || !rhs) return null;
    return (context) => `${(lhs(context) as string | undefined) ?? ''}${(rhs(context) as string | undefined) ?? ''}`;
  };
  const report = await checkPlainAgainstJsonata({ seed: SEED, numRuns: RUNS, compile: joinsNumbers });
  assert.ok(report.failure, 'the broken compiler passed');
  assert.match(report.failure, /PlainMismatchError|plain-jsonata gave/);
  const counterexample = /Counterexample: \["((?:[^"\\]|\\.)*)"/.exec(report.failure)?.[1];
  assert.ok(counterexample !== undefined && counterexample.includes('&') && counterexample.length < 40, `counterexample: ${counterexample}`);
});
