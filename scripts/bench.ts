/**
 * `npm run bench`: benchmarks, not timed tests. Prints one JSON document on stdout (progress on
 * stderr): the story pipeline against a plain-BullMQ baseline of the same shape measured in the
 * same run (throughput, stage hops and a story's end-to-end time, accepting 10,000 stories, and single stories accepted one at a time with their cost per request), and module-docs search. Redis: REDIS_URL, else a local server in `.data/redis-bench`, stopped at
 * the end. BENCH_STORIES (N, default 500), BENCH_HOP_STORIES (default 200) and
 * BENCH_ROUNDS (throughput rounds, default 7: a round that an AOF rewrite or a
 * neighbour's burst lands on is outvoted), BENCH_CONCURRENCY (per stage queue, default 8),
 * BENCH_ENGINE_PAIRS (engine/hand-built pairs per round, default 3), BENCH_ACCEPT_DELAY_MS (ms a proxy
 * between the orchestrator and Redis holds each chunk each way while single stories are accepted
 * through it, counting a start's round trips; default 2) and
 * BENCH_DURABILITY_STORIES / BENCH_DURABILITY_ROUNDS (default 300 / 3) change the sizes.
 *
 *   npm run bench                       everything but the realistic part
 *   npm run bench -- durability         only the named parts: pipeline, durability, modules, startup, agent, realistic, rate-limit, contention, guarantees
 *
 * BENCH_REDIS=cluster (with no REDIS_URL) runs it all on a local 3-master Redis Cluster instead
 * (temporary data, stopped at the end); REDIS_URL=redis-cluster://host:port,… on a cluster of yours.
 *
 * `startup` compares each service started through tsx with its compiled JavaScript (built first
 * with tsc -b): time and CPU to ready, and RSS (BENCH_STARTUP_ROUNDS, default 5).
 *
 * `agent` compares the engine's CPU per agent tool call with a plain tool step's (scripts/bench/agent-steps.ts):
 * BENCH_AGENT_RUNS (N runs of each, default 100), BENCH_AGENT_CALLS (K calls a turn, 3), BENCH_AGENT_TURNS
 * (T turns with calls, 3), BENCH_AGENT_ROUNDS (3); BENCH_AGENT_PROFILE=<dir> profiles one more batch of
 * each into that directory and sums the profiles up in the report.
 *
 * `contention` (only when named) measures flow control under contention as ratios in one run:
 * a single run behind another key's batch, two keys' shares, a concurrency key's limit
 * (scripts/bench/contention.ts: BENCH_CONTENTION_BATCH, _SHARE_BATCH, _USERS, _USER_RUNS,
 * _CONCURRENCY, _TOOL_MS, _ONLY).
 *
 * `realistic` (only when named: at its default size it runs for minutes) runs stories through the
 * whole stack as processes with realistic tool latencies (scripts/bench/realistic.ts):
 * BENCH_REALISTIC_STORIES (default 10000), BENCH_REALISTIC_WORKERS (2), BENCH_REALISTIC_CONCURRENCY
 * (per queue; default the workers' own), BENCH_REALISTIC_CONTENT_FLUSH_MS (the workers'
 * CONTENT_FLUSH_MS; default theirs), BENCH_REALISTIC_BATCH (items per POST /v1/batches, 1000),
 * BENCH_REALISTIC_SEARCH_MS / _OUTLINE_MS / _WRITER_MS / _POLISH_MS (300 / 1000 / 3000 / 2000).
 * After Switchyard's batch the same services run a hand-written BullMQ flow of the same steps
 * (scripts/bench/realistic-baseline.ts): BENCH_REALISTIC_BASELINE_STORIES (default the same
 * number), BENCH_REALISTIC_BASELINE=0 to leave it out.
 *
 * `guarantees` (only when named) runs the plain-BullMQ story flow with the engine's guarantees
 * added by hand at their least, one on top of the other, beside Switchyard, in the same rounds
 * (scripts/bench/story-guarantees.ts; BENCH_STORIES and BENCH_ROUNDS size it, BENCH_HOP_STORIES
 * the stories run one at a time through each hand-written flow, the last one also behind an HTTP
 * API at its least, and Switchyard), and what an ioredis pipeline
 * costs on a connection BullMQ shares against the same commands sent together (pipeline-making.ts).
 *
 * `rate-limit` (only when named: at its default size it runs for about 3 minutes) runs agent runs
 * against a rate-limited model through the stack with worker processes at their default
 * concurrency (scripts/bench/rate-limit-scenario.ts): BENCH_RATE_RUNS (default 200),
 * BENCH_RATE_LIMIT (what the model admits, N/MS, default 10/5000), BENCH_RATE_WORKERS (2),
 * BENCH_RATE_CONCURRENCY (per queue; default the workers' own).
 */
import os from 'node:os';
import { REPO_ROOT, createRedisClient, isClusterUrl, masters, resolveRedis, uniquePrefix } from '@switchyard/redis';
import { benchModuleSearch } from '@switchyard/module-docs';
import { createLogger } from '@switchyard/logger';
import { createOfflineAuthor, startToolServices } from '@switchyard/tool-services';
import { benchAgentSteps } from './bench/agent-steps.js';
import { benchDurability } from './bench/durability.js';
import { benchRealistic } from './bench/realistic.js';
import { benchRateLimit } from './bench/rate-limit-scenario.js';
import { benchStartup } from './bench/startup.js';
import { buildCompiled } from './launcher/runtime.js';
import { benchStoryPipeline, TARGETS } from './bench/story-pipeline.js';
import { benchContention } from './bench/contention.js';
import { benchGuarantees } from './bench/story-guarantees.js';

const round2 = (n: number) => Math.round(n * 100) / 100;

function sizeFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${name} must be a whole number above 0, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

const PARTS = ['pipeline', 'durability', 'modules', 'startup', 'agent', 'realistic', 'contention', 'rate-limit', 'guarantees'] as const;
/** Parts that run only when named. */
const ON_REQUEST: readonly Part[] = ['realistic', 'contention', 'rate-limit', 'guarantees'];
type Part = (typeof PARTS)[number];
const asked = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = asked.filter((arg) => !(PARTS as readonly string[]).includes(arg));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark part ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}\n`);
  process.exit(2);
}
const runs = (part: Part) => (asked.length === 0 ? !ON_REQUEST.includes(part) : asked.includes(part));

const options = {
  stories: sizeFromEnv('BENCH_STORIES', 500),
  hopStories: sizeFromEnv('BENCH_HOP_STORIES', 200),
  rounds: sizeFromEnv('BENCH_ROUNDS', 7),
  concurrency: sizeFromEnv('BENCH_CONCURRENCY', 8),
  enginePairs: sizeFromEnv('BENCH_ENGINE_PAIRS', 3),
  acceptDelayMs: sizeFromEnv('BENCH_ACCEPT_DELAY_MS', 2),
  batchItems: 10_000,
  acceptRepeats: 3,
  durabilityStories: sizeFromEnv('BENCH_DURABILITY_STORIES', 300),
  durabilityRounds: sizeFromEnv('BENCH_DURABILITY_ROUNDS', 3),
  startupRounds: sizeFromEnv('BENCH_STARTUP_ROUNDS', 5),
};

/** The realistic part's sizes, read only when it runs. */
function realisticOptions(redisUrl: string) {
  const concurrency = process.env.BENCH_REALISTIC_CONCURRENCY ? sizeFromEnv('BENCH_REALISTIC_CONCURRENCY', 1) : undefined;
  return {
    redisUrl,
    stories: sizeFromEnv('BENCH_REALISTIC_STORIES', 10_000),
    workers: sizeFromEnv('BENCH_REALISTIC_WORKERS', 2),
    concurrency,
    contentFlushMs: process.env.BENCH_REALISTIC_CONTENT_FLUSH_MS ? sizeFromEnv('BENCH_REALISTIC_CONTENT_FLUSH_MS', 1) : undefined,
    batchSize: sizeFromEnv('BENCH_REALISTIC_BATCH', 1000),
    dispatchAhead: process.env.BENCH_REALISTIC_DISPATCH_AHEAD ? sizeFromEnv('BENCH_REALISTIC_DISPATCH_AHEAD', 1) : undefined,
    baseline: process.env.BENCH_REALISTIC_BASELINE !== '0',
    baselineStories: process.env.BENCH_REALISTIC_BASELINE_STORIES ? sizeFromEnv('BENCH_REALISTIC_BASELINE_STORIES', 1) : undefined,
    latencies: {
      searchMs: sizeFromEnv('BENCH_REALISTIC_SEARCH_MS', 300),
      outlineMs: sizeFromEnv('BENCH_REALISTIC_OUTLINE_MS', 1000),
      writerStreamMs: sizeFromEnv('BENCH_REALISTIC_WRITER_MS', 3000),
      polishTaskMs: sizeFromEnv('BENCH_REALISTIC_POLISH_MS', 2000),
    },
  };
}

/** The contention part's sizes, read only when it runs (scripts/bench/contention.ts). */
function contentionOptions() {
  return {
    sizes: {
      batch: sizeFromEnv('BENCH_CONTENTION_BATCH', 10_000),
      shareBatch: sizeFromEnv('BENCH_CONTENTION_SHARE_BATCH', 2000),
      users: sizeFromEnv('BENCH_CONTENTION_USERS', 10),
      userRuns: sizeFromEnv('BENCH_CONTENTION_USER_RUNS', 100),
      concurrency: sizeFromEnv('BENCH_CONTENTION_CONCURRENCY', 200),
      toolMs: sizeFromEnv('BENCH_CONTENTION_TOOL_MS', 1000),
    },
    only: process.env.BENCH_CONTENTION_ONLY ? process.env.BENCH_CONTENTION_ONLY.split(',') : undefined,
  };
}

/** The agent part's sizes, read only when it runs. */
function agentOptions() {
  return {
    runs: sizeFromEnv('BENCH_AGENT_RUNS', 100),
    calls: sizeFromEnv('BENCH_AGENT_CALLS', 3),
    turns: sizeFromEnv('BENCH_AGENT_TURNS', 3),
    rounds: sizeFromEnv('BENCH_AGENT_ROUNDS', 3),
    profileDir: process.env.BENCH_AGENT_PROFILE || undefined,
  };
}

/** The rate-limit part's sizes, read only when it runs. */
function rateLimitOptions(redisUrl: string) {
  const raw = process.env.BENCH_RATE_LIMIT || '10/5000';
  const match = /^(\d+)\/(\d+)$/.exec(raw);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
    process.stderr.write(`BENCH_RATE_LIMIT must be N/MS (requests per window of MS ms), got "${raw}"\n`);
    process.exit(2);
  }
  return {
    redisUrl,
    runs: sizeFromEnv('BENCH_RATE_RUNS', 200),
    limit: { requests: Number(match[1]), windowMs: Number(match[2]) },
    workers: sizeFromEnv('BENCH_RATE_WORKERS', 2),
    concurrency: process.env.BENCH_RATE_CONCURRENCY ? sizeFromEnv('BENCH_RATE_CONCURRENCY', 1) : undefined,
  };
}

/** The start-up part: the build first, then the services against reference tool services of its own. */
async function startupPart(redisUrl: string) {
  process.stderr.write('building the compiled JavaScript (tsc -b)…\n');
  buildCompiled();
  const tools = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'bench-tools', level: 'silent' }) });
  try {
    const toolEnv = Object.fromEntries(Object.entries(tools.services).map(([key, service]) => [`${key.toUpperCase()}_SERVICE_URL`, service.url]));
    return await benchStartup({ redisUrl, toolEnv, rounds: options.startupRounds });
  } finally {
    await tools.close();
  }
}

const started = performance.now();
const loadAtStart = os.loadavg()[0] ?? 0;
const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: `${REPO_ROOT}.data/redis-bench`, cluster: process.env.BENCH_REDIS === 'cluster' });
let exitCode = 0;
try {
  const info = createRedisClient(redis.url);
  const redisVersion = /redis_version:(\S+)/.exec(await info.info('server'))?.[1] ?? 'unknown';
  // Our own server keeps its data between runs; what an interrupted run left would skew this one.
  const clusterMasters = isClusterUrl(redis.url) ? (await masters(info)).length : 0;
  if (redis.owned) for (const node of await masters(info)) await node.flushall();
  await info.quit();
  const results = runs('pipeline') ? await benchStoryPipeline({ redisUrl: redis.url, ...options }) : {};
  const durability = runs('durability')
    ? await benchDurability({ redisUrl: redis.url, stories: options.durabilityStories, rounds: options.durabilityRounds, concurrency: options.concurrency })
    : undefined;
  let moduleSearch;
  if (runs('modules')) {
    process.stderr.write('module search over 5,000 modules…\n');
    const searchRedis = createRedisClient(redis.url);
    const measured = await benchModuleSearch({ redis: searchRedis, prefix: uniquePrefix('bench-modules'), modules: 5000 });
    await searchRedis.quit();
    moduleSearch = { ...measured, target_p99_ms_max: 50, met: measured.p99_ms < 50 };
  }
  const startup = runs('startup') ? await startupPart(redis.url) : undefined;
  const agentSteps = runs('agent') ? await benchAgentSteps({ redisUrl: redis.url, concurrency: options.concurrency, ...agentOptions() }) : undefined;
  const realistic = runs('realistic') ? await benchRealistic(realisticOptions(redis.url)) : undefined;
  const rateLimit = runs('rate-limit') ? await benchRateLimit(rateLimitOptions(redis.url)) : undefined;
  const contention = runs('contention') ? await benchContention({ redisUrl: redis.url, ...contentionOptions() }) : undefined;
  const guarantees = runs('guarantees') ? await benchGuarantees({ redisUrl: redis.url, stories: options.stories, rounds: options.rounds, concurrency: options.concurrency, singleStories: options.hopStories }) : undefined;
  const report = {
    benchmark: 'switchyard story pipeline',
    machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: `${os.platform()} ${os.arch()}`, redis: redisVersion, redis_local: redis.owned, redis_cluster: clusterMasters > 0 ? `${clusterMasters} masters` : false, load_avg_1m: { start: round2(loadAtStart), end: round2(os.loadavg()[0] ?? 0) } },
    n: options.stories,
    settings: { stories: options.stories, throughput_rounds: options.rounds, hop_stories: options.hopStories, concurrency_per_queue: options.concurrency, batch_items: options.batchItems, tools: 'in-process, zero latency' },
    targets: TARGETS,
    ...results,
    durability,
    module_search: moduleSearch,
    startup,
    agent_steps: agentSteps,
    realistic,
    rate_limit: rateLimit,
    contention,
    guarantees_by_hand: guarantees,
    total_s: Math.round((performance.now() - started) / 100) / 10,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} catch (error) {
  process.stderr.write(`The benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exitCode = 1;
} finally {
  await redis.stop();
}
process.exit(exitCode);
