/**
 * `npm run chaos`: the fault suite. Each scenario starts the whole stack as separate processes on
 * a Redis of this run's own (loopback only), injects its faults from outside, and prints one JSON
 * line of figures on stdout (progress on stderr); the last line is `N passed, N failed`.
 * plain-jsonata needs no stack: it holds the plain-JSONata compiler to JSONata on 20,000
 * generated expressions and contexts, from a new seed each run.
 *
 *   npm run chaos                         every scenario (about 10 minutes on 2 cores)
 *   npm run chaos -- redis-restart        only the named ones: tool-faults, stalled-job,
 *                                         worker-kill, worker-kill-rate, redis-restart, malformed,
 *                                         retention, hostile, plain-jsonata, kill-all
 *   npm run chaos -- plain-jsonata --seed=123
 *                                         a generating scenario from the seed a run printed
 *   CHAOS_SCALE=0.2 npm run chaos         smaller batches (a fifth of the stories, of the cases)
 */
import { ensureRedisServer, RestartableRedis } from '@switchyard/redis';
import { say } from './chaos/harness.js';
import type { ScenarioResult } from './chaos/harness.js';
import { SCENARIOS, type ScenarioName } from './chaos/scenarios.js';

const names = Object.keys(SCENARIOS) as ScenarioName[];
const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = asked.filter((arg) => !(names as string[]).includes(arg));
if (unknown.length > 0) {
  say(`unknown scenario ${unknown.join(', ')}; the scenarios are ${names.join(', ')}`);
  process.exit(2);
}
const scale = Number(process.env.CHAOS_SCALE ?? '1');
if (!(scale > 0 && scale <= 1)) {
  say(`CHAOS_SCALE must be above 0 and at most 1, got "${process.env.CHAOS_SCALE}"`);
  process.exit(2);
}
const size = (fallback: number) => Math.max(2, Math.round((fallback * scale) / 2) * 2);
const seedArg = process.argv.find((arg) => arg.startsWith('--seed='));
const seed = seedArg === undefined ? undefined : Number(seedArg.slice('--seed='.length));
if (seed !== undefined && !Number.isSafeInteger(seed)) {
  say(`--seed must be an integer, got "${seedArg}"`);
  process.exit(2);
}

ensureRedisServer({ searchPath: process.env.PATH ?? '', log: say });
const redis = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
const results: ScenarioResult[] = [];
const started = Date.now();
try {
  for (const name of asked.length > 0 ? (asked as ScenarioName[]) : names) {
    say(`▶ ${name}`);
    const t0 = Date.now();
    const result = await SCENARIOS[name]({ redis, size, seed }).catch((error: unknown): ScenarioResult => ({ scenario: name, passed: false, figures: { error: error instanceof Error ? error.message : String(error) } }));
    results.push(result);
    process.stdout.write(`${JSON.stringify({ ...result, seconds: Math.round((Date.now() - t0) / 100) / 10 })}\n`);
    say(`${result.passed ? '✔' : '✖'} ${name}`);
  }
} finally {
  await redis.close();
}
const passed = results.filter((r) => r.passed).length;
say(`chaos took ${Math.round((Date.now() - started) / 1000)} s`);
process.stdout.write(`${passed} passed, ${results.length - passed} failed\n`);
process.exit(passed === results.length ? 0 : 1);
