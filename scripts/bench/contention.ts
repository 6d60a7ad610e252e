/**
 * `npm run bench -- contention`: flow control under contention, as figures and ratios measured in
 * one run (each against its own baseline measured in the same run: a run or a batch alone). A
 * runner over scenarios: each is a function that gets the run's Redis and sizes and answers its
 * figures, so that scenarios kept elsewhere (rate limits shared by every worker) join by being
 * listed in CONTENTION_SCENARIOS.
 *
 * Sizes: BENCH_CONTENTION_BATCH (the batch a single run is started behind, default 10000),
 * BENCH_CONTENTION_SHARE_BATCH (each of the two keys' batches, and the second batch of
 * batches_of_one_key, whose other two are twice as large; default 2000),
 * BENCH_CONTENTION_USERS / BENCH_CONTENTION_USER_RUNS (the concurrency key's users and runs,
 * default 10 and 100), BENCH_CONTENTION_CONCURRENCY (worker slots per queue, default 200, the
 * workers' default), BENCH_CONTENTION_TOOL_MS (each tool call's latency, default 1000: calls wait
 * on the network, so the workers' CPU is not what the runs wait for), BENCH_CONTENTION_ONLY (a comma-separated list of scenario names).
 */
import { batchesOfOneKeyScenario, concurrencyKeyScenario, fairSharesScenario, singleBehindBatchScenario } from './contention-scenarios.js';
import type { ContentionScenario, ContentionSizes } from './contention-types.js';
import { benchRateLimit } from './rate-limit-scenario.js';

/** 200 agent runs against a model admitting 10 requests per 5 s, at the default concurrency (`npm run bench -- rate-limit` alone). */
const rateLimitScenario: ContentionScenario = {
  name: 'rate_limit',
  run: async (env) => ({ ...(await benchRateLimit({ redisUrl: env.redisUrl })) }),
};

export const CONTENTION_SCENARIOS: readonly ContentionScenario[] = [singleBehindBatchScenario, fairSharesScenario, batchesOfOneKeyScenario, concurrencyKeyScenario, rateLimitScenario];

/** Runs the scenarios one after another (each on a stack and key prefix of its own); a failed one is reported, not fatal. */
export async function benchContention(options: { redisUrl: string; sizes: ContentionSizes; only?: readonly string[] | undefined; scenarios?: readonly ContentionScenario[] }): Promise<Record<string, unknown>> {
  const scenarios = (options.scenarios ?? CONTENTION_SCENARIOS).filter((s) => !options.only || options.only.includes(s.name));
  const results: Record<string, unknown> = { sizes: options.sizes };
  for (const scenario of scenarios) {
    process.stderr.write(`contention: ${scenario.name}…\n`);
    const started = performance.now();
    try {
      results[scenario.name] = { ...(await scenario.run({ redisUrl: options.redisUrl, sizes: options.sizes, log: (line) => process.stderr.write(`  ${line}\n`) })), took_s: Math.round((performance.now() - started) / 100) / 10 };
    } catch (error) {
      results[scenario.name] = { failed: error instanceof Error ? error.message : String(error) };
    }
  }
  return results;
}
