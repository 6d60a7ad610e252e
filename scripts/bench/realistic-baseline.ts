/**
 * The realistic bench's baseline, run in the same session against the same reference services:
 * the story's seven steps as a hand-written BullMQ flow (realistic-baseline-worker.ts) in worker
 * processes of its own, as many and as concurrent as Switchyard's. It measures what the baseline
 * spends per story from /proc (its workers, the tool services) and Redis INFO, with Redis' idle
 * rate (Switchyard's idle stack shares the server meanwhile) taken out.
 */
import { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { STAGE_JOB_OPTIONS } from '@switchyard/pipeline';
import { createRedisClient, keyspace } from '@switchyard/redis';
import { Children, startService } from '../launcher/processes.js';
import { BASELINE_REALISTIC_QUEUES as QUEUES, baselineKeys, type BaselineStory } from './realistic-baseline-keys.js';
import { readProcessIfAlive } from './realistic-sampling.js';
import { deletePrefix, round, say } from './story-stats.js';
import { redisCpuSeconds } from './redis-info.js';

export interface RealisticBaselineOptions {
  redisUrl: string;
  stories: number;
  workers: number;
  /** Jobs at once per queue in each process (Switchyard's). */
  concurrency: number;
  lockDurationMs: number;
  lockRenewMs: number;
  stalledIntervalMs: number;
  /** The reference services' URLs by key (search, outline, writing, editing) and their key. */
  toolServices: Record<string, string>;
  toolKey: string;
  /** Processes whose CPU is counted as the tool services', by name. */
  toolPids: Record<string, number>;
  timeoutMs: number;
}

const CHUNK = 250;

async function redisCpuS(redis: Redis): Promise<number> {
  return redisCpuSeconds(await redis.info('cpu'));
}

const cpuOf = (pids: Record<string, number>) => Object.values(pids).reduce((sum, pid) => sum + (readProcessIfAlive(pid)?.cpuS ?? 0), 0);

async function until(ok: () => Promise<boolean>, timeoutMs: number, what: string, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`baseline: ${what} did not happen within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function firstFlow(story: BaselineStory) {
  return {
    name: 'story.outline',
    queueName: QUEUES.outline,
    data: story,
    opts: { ...STAGE_JOB_OPTIONS, jobId: `${story.story}.outline` },
    children: [{ name: 'story.search', queueName: QUEUES.search, data: story, opts: { ...STAGE_JOB_OPTIONS, jobId: `${story.story}.search`, failParentOnFailure: true } }],
  };
}

async function failedJobs(redis: Redis, prefix: string): Promise<number> {
  let failed = 0;
  for (const name of Object.values(QUEUES)) {
    const queue = new Queue(name, { connection: redis, prefix });
    failed += await queue.getFailedCount();
    await queue.close();
  }
  return failed;
}

/** Runs the batch through the baseline; CPU seconds and ms per story by process class. */
export async function benchRealisticBaseline(options: RealisticBaselineOptions) {
  const name = `bl-${Date.now().toString(36)}`;
  const prefix = keyspace(name).shared;
  const keys = baselineKeys(prefix);
  const redis = createRedisClient(options.redisUrl);
  const children = new Children();
  const flows = new FlowProducer({ connection: redis, prefix });
  const polish = new Queue(QUEUES.polish, { connection: redis, prefix });
  try {
    const env = {
      REDIS_URL: options.redisUrl,
      BASELINE_PREFIX: prefix,
      BASELINE_CONCURRENCY: String(options.concurrency),
      LOCK_DURATION_MS: String(options.lockDurationMs),
      LOCK_RENEW_MS: String(options.lockRenewMs),
      STALLED_INTERVAL_MS: String(options.stalledIntervalMs),
      TOOL_SERVICE_API_KEY: options.toolKey,
      ...Object.fromEntries(Object.entries(options.toolServices).map(([key, url]) => [`${key.toUpperCase()}_SERVICE_URL`, url])),
    };
    const workers = Array.from({ length: options.workers }, (_, i) => children.add(startService({ name: `baseline-worker-${i + 1}`, entry: 'scripts/bench/realistic-baseline-worker.ts', tier: 1, env })));
    await until(async () => (await polish.getWorkersCount()) >= options.workers, 120_000, 'the baseline workers listening');
    const workerPids = Object.fromEntries(workers.map((w) => [w.name, w.process.pid as number]));

    // Switchyard's stack is idle meanwhile but still polls Redis: its rate is taken out below.
    const idleFrom = { at: performance.now(), cpu: await redisCpuS(redis) };
    await new Promise((r) => setTimeout(r, 3000));
    const idleRedisCores = ((await redisCpuS(redis)) - idleFrom.cpu) / ((performance.now() - idleFrom.at) / 1000);

    const before = { workers: cpuOf(workerPids), tools: cpuOf(options.toolPids), redis: await redisCpuS(redis) };
    const started = performance.now();
    for (let from = 0; from < options.stories; from += CHUNK) {
      const stories = Array.from({ length: Math.min(CHUNK, options.stories - from) }, (_, i) => ({ story: `s${from + i}`, topic: `a lighthouse keeper's letter number ${from + i}`, style: 'descriptive' }));
      await flows.addBulk(stories.map(firstFlow));
    }
    say(`realistic baseline: ${options.stories} stories added; waiting for them to end…`);
    await until(async () => Number((await redis.get(keys.done)) ?? 0) >= options.stories, options.timeoutMs, 'every baseline story finishing', 500);
    const seconds = (performance.now() - started) / 1000;
    const spent = { workers: cpuOf(workerPids) - before.workers, tools: cpuOf(options.toolPids) - before.tools, redisRaw: (await redisCpuS(redis)) - before.redis };
    const redisS = Math.max(0, spent.redisRaw - idleRedisCores * seconds);
    const perStory = (cpuS: number) => round((cpuS * 1000) / options.stories, 2);
    return {
      stories: options.stories,
      seconds: round(seconds, 1),
      failed: await failedJobs(redis, prefix),
      cpu_s: { workers: round(spent.workers, 1), tool_services: round(spent.tools, 1), redis: round(redisS, 1), redis_raw: round(spent.redisRaw, 1), redis_idle_cores: round(idleRedisCores, 4) },
      ms_per_story: { workers: perStory(spent.workers), tool_services: perStory(spent.tools), redis: perStory(redisS), workers_and_redis: perStory(spent.workers + redisS) },
    };
  } finally {
    await children.stopAll();
    await polish.close();
    await flows.close();
    await deletePrefix(redis, name).catch(() => 0);
    redis.disconnect();
  }
}

export type BaselineReport = Awaited<ReturnType<typeof benchRealisticBaseline>> & { halves?: { stories: number; ms_per_story: { workers_and_redis: number } }[] };

/** Two baseline runs as one: CPU summed over the stories of both; each half's cost kept beside. */
export function combineBaselines(a: Awaited<ReturnType<typeof benchRealisticBaseline>>, b: Awaited<ReturnType<typeof benchRealisticBaseline>>): BaselineReport {
  const stories = a.stories + b.stories;
  const sum = (pick: (r: typeof a) => number) => round(pick(a) + pick(b), 1);
  const cpu_s = { workers: sum((r) => r.cpu_s.workers), tool_services: sum((r) => r.cpu_s.tool_services), redis: sum((r) => r.cpu_s.redis), redis_raw: sum((r) => r.cpu_s.redis_raw), redis_idle_cores: round((a.cpu_s.redis_idle_cores + b.cpu_s.redis_idle_cores) / 2, 4) };
  const perStory = (cpuS: number) => round((cpuS * 1000) / stories, 2);
  return {
    stories,
    seconds: sum((r) => r.seconds),
    failed: a.failed + b.failed,
    cpu_s,
    ms_per_story: { workers: perStory(cpu_s.workers), tool_services: perStory(cpu_s.tool_services), redis: perStory(cpu_s.redis), workers_and_redis: perStory(cpu_s.workers + cpu_s.redis) },
    halves: [a, b].map((r) => ({ stories: r.stories, ms_per_story: { workers_and_redis: r.ms_per_story.workers_and_redis } })),
  };
}
