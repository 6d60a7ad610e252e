/**
 * `npm run chaos -- plain-jsonata`: the property test of the plain-JSONata compiler
 * (packages/pipeline/src/definition/testing/plain-jsonata-property.ts) on many more generated
 * cases than `npm test` runs, from a new seed each time (printed; `--seed=N` replays one). It
 * needs no stack: the compiler and JSONata are compared in this process.
 */
import { randomInt } from 'node:crypto';
import { checkPlainAgainstJsonata, describeCounts, tooLittleTested } from '../../packages/pipeline/src/definition/testing/plain-jsonata-property.js';
import { say, type ScenarioOptions, type ScenarioResult } from './harness.js';

/** Cases at CHAOS_SCALE=1; a smaller scale runs fewer. */
const RUNS = 20_000;

export async function plainJsonata({ size, seed }: ScenarioOptions): Promise<ScenarioResult> {
  const chosen = seed ?? randomInt(2 ** 31);
  const numRuns = size(RUNS);
  say(`  plain-jsonata: ${numRuns} cases from seed ${chosen} (replay: npm run chaos -- plain-jsonata --seed=${chosen})`);
  const started = Date.now();
  const report = await checkPlainAgainstJsonata({ seed: chosen, numRuns });
  say(`  plain-jsonata: ${describeCounts(report.counts)}`);
  if (report.failure) say(report.failure);
  const tooLittle = tooLittleTested(report.counts);
  const figures = { seed: chosen, runs: numRuns, ...report.counts, too_little_tested: tooLittle ?? null, failure: report.failure ?? null, ms: Date.now() - started };
  return { scenario: 'plain-jsonata', passed: !report.failure && !tooLittle, figures };
}
