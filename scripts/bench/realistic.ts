/**
 * The realistic bench: stories through the whole stack as separate processes (the API, worker
 * processes, the reference tool services with realistic latencies: search and outline answering
 * after a delay, each writer streaming its section in chunks over seconds, polish as an async
 * task), submitted in batches through `POST /v1/batches`. While they run it samples the processes'
 * memory and CPU, Redis' memory, the jobs in flight per step queue, and single `POST /v1/stories`
 * latencies; at the end it counts the content events the runs recorded and compares the
 * completion time with the bound the configured concurrency allows (realistic-bound.ts).
 */
import os from 'node:os';
import { createRedisClient, keyspace } from '@switchyard/redis';
import type { Redis } from 'ioredis';
import { runKeys, toolQueue } from '@switchyard/pipeline';
import { TOOL_SERVICE_KEYS, type ToolServiceKey } from '@switchyard/contracts';
import { loadEnv as loadWorkersEnv } from '@switchyard/workers';
import { startChaosStack, type ChaosStack } from '../chaos/harness.js';
import { asyncSeenAfterMs, completionBound } from './realistic-bound.js';
import { countContentEvents, keptBytesPerRun, stageSeconds } from './realistic-events.js';
import { readProcess, readProcessIfAlive, spread, startPostProbe, startSampler, type Sample } from './realistic-sampling.js';
import { median, round, say } from './story-stats.js';
import { benchRealisticBaseline, combineBaselines, type BaselineReport } from './realistic-baseline.js';
import { infoField, redisCpuSeconds } from './redis-info.js';

export interface RealisticOptions {
  redisUrl: string;
  stories: number;
  /** Worker processes (default 2). */
  workers?: number;
  /** Per-queue concurrency of each worker process; unset: the workers' own default. */
  concurrency?: number;
  /** The workers' CONTENT_FLUSH_MS; unset: their own default. */
  contentFlushMs?: number | undefined;
  /** The workers' DISPATCH_AHEAD; unset: their own default. */
  dispatchAhead?: number | undefined;
  /** Items per `POST /v1/batches` (default 1000). */
  batchSize?: number;
  /** Search and outline latency, each writer's stream duration, polish's task time (ms). */
  latencies: { searchMs: number; outlineMs: number; writerStreamMs: number; polishTaskMs: number };
  /** Single `POST /v1/stories` probes per second while the batch runs (default 2). */
  probesPerSecond?: number;
  /** Key prefix (default one of its own). */
  prefix?: string;
  /** Run the hand-written BullMQ baseline, half before Switchyard's batch and half after, on the same services (default true). */
  baseline?: boolean;
  /** Stories of the baseline's batch (default `stories`). */
  baselineStories?: number;
  /** Give up waiting for the stories after this long (default 4× the bound, at least 2 min). */
  timeoutMs?: number;
}

const TARGET_RATIO = 1.25;

/** CPU a process spent during the run: seconds, average cores, milliseconds per story. */
interface CpuUse {
  cpu_s: number;
  cores: number;
  ms_per_story: number;
}

interface BatchCounts {
  status: string;
  counts: Record<string, number>;
}

async function submit(stack: ChaosStack, stories: number, batchSize: number): Promise<{ batchIds: string[]; runIds: string[] }> {
  const batchIds: string[] = [];
  const runIds: string[] = [];
  for (let from = 0; from < stories; from += batchSize) {
    const items = Array.from({ length: Math.min(batchSize, stories - from) }, (_, i) => ({ topic: `a lighthouse keeper's letter number ${from + i}` }));
    const batch = await stack.post<{ batch_id: string; run_ids: string[] }>('/v1/batches', { items, defaults: { style: 'descriptive' } });
    batchIds.push(batch.batch_id);
    runIds.push(...batch.run_ids);
  }
  return { batchIds, runIds };
}

/** Polls the batches' counts once a second until every run has ended; resolves with the counts. */
async function untilBatchesEnd(stack: ChaosStack, batchIds: string[], timeoutMs: number): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const views = await Promise.all(batchIds.map(async (id) => (await stack.get<BatchCounts>(`/v1/batches/${id}?limit=1`)).body));
    const counts: Record<string, number> = {};
    for (const view of views) for (const [status, n] of Object.entries(view.counts)) counts[status] = (counts[status] ?? 0) + n;
    if (views.every((v) => v.status === 'done')) return counts;
    if (Date.now() > deadline) throw new Error(`the stories did not all end within ${Math.round(timeoutMs / 1000)} s: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** What the workers' memory grows by per job in flight: busy RSS over idle, per active job of one process. */
function memoryPerInFlight(samples: Sample[], idleWorkerMb: number, workers: number) {
  const totals = samples.map((s) => Object.values(s.active).reduce((a, b) => a + b, 0));
  const peak = Math.max(0, ...totals);
  const busy = samples.filter((_, i) => (totals[i] ?? 0) >= peak / 2 && peak > 0);
  const workerRss = (s: Sample) => Object.entries(s.rssMb).filter(([name]) => name.startsWith('worker-')).map(([, mb]) => mb);
  const busyMb = median(busy.flatMap(workerRss));
  const inFlightPerWorker = median(busy.map((s) => Object.values(s.active).reduce((a, b) => a + b, 0) / workers));
  return {
    peak_in_flight: peak,
    median_in_flight_per_worker_when_busy: round(inFlightPerWorker, 1),
    worker_rss_idle_mb: round(idleWorkerMb, 1),
    worker_rss_busy_median_mb: round(busyMb, 1),
    kb_per_in_flight_stage: inFlightPerWorker > 0 ? Math.round(((busyMb - idleWorkerMb) * 1024) / inFlightPerWorker) : null,
  };
}

async function redisCounters(redisUrl: string): Promise<{ usedBytes: number; cpuS: number }> {
  const redis = createRedisClient(redisUrl);
  try {
    const [memory, cpu] = await Promise.all([redis.info('memory'), redis.info('cpu')]);
    return { usedBytes: infoField(memory, 'used_memory'), cpuS: redisCpuSeconds(cpu) };
  } finally {
    redis.disconnect();
  }
}

/**
 * Waits until the workers have compacted every ended run (their list of ended runs is empty), so
 * that Redis' memory afterwards is what finished runs keep; reports the wait and the workers' CPU.
 */
async function untilCompacted(options: { redis: Redis; prefix: string; pids: Record<string, number>; stories: number }) {
  const workers = Object.entries(options.pids).filter(([name]) => name.startsWith('worker-'));
  const cpuAt = () => workers.reduce((sum, [, pid]) => sum + (readProcessIfAlive(pid)?.cpuS ?? 0), 0);
  const cpuBefore = cpuAt();
  const started = performance.now();
  const key = runKeys(options.prefix).endedRuns;
  let left = await options.redis.zcard(key);
  // Runs are compacted COMPACT_AFTER_MS (10 s) after their end, in passes every COMPACT_INTERVAL_MS (5 s).
  while (left > 0 && performance.now() - started < 120_000) {
    await new Promise((r) => setTimeout(r, 500));
    left = await options.redis.zcard(key);
  }
  const cpuS = cpuAt() - cpuBefore;
  return { wait_s: round((performance.now() - started) / 1000, 1), runs_left: left, worker_cpu_s: round(cpuS, 2), worker_cpu_ms_per_story: round((cpuS * 1000) / options.stories, 2) };
}

const CPU_RATIO_TARGET = 1.25;

/** Switchyard's CPU per story by process class beside the baseline's, and the ratio the issue sets. */
function againstBaseline(cpu: Record<string, CpuUse>, redisMsPerStory: number, baseline: BaselineReport) {
  const sum = (match: (name: string) => boolean) => round(Object.entries(cpu).filter(([name]) => match(name)).reduce((total, [, use]) => total + use.ms_per_story, 0), 2);
  const switchyard = { workers: sum((n) => n.startsWith('worker-')), redis: redisMsPerStory, api: sum((n) => n === 'orchestrator'), tool_services: sum((n) => n === 'tool-services') };
  const mine = switchyard.workers + switchyard.redis + switchyard.api;
  const ratio = round(mine / baseline.ms_per_story.workers_and_redis, 2);
  return {
    switchyard_ms_per_story: { ...switchyard, workers_redis_api: round(mine, 2) },
    baseline,
    /** Switchyard's workers + Redis + API over the baseline's workers + Redis, per story. */
    cpu_ratio: ratio,
    target_max: CPU_RATIO_TARGET,
    met: ratio <= CPU_RATIO_TARGET,
  };
}

export async function benchRealistic(options: RealisticOptions) {
  const workers = options.workers ?? 2;
  const batchSize = options.batchSize ?? 1000;
  const { latencies } = options;
  const prefix = options.prefix ?? `bench-realistic-${Date.now().toString(36)}`;
  const env: Record<string, string> = {
    FAULT_SEARCH_LATENCY_MS: String(latencies.searchMs),
    FAULT_OUTLINE_LATENCY_MS: String(latencies.outlineMs),
    FAULT_WRITING_STREAM_MS: String(latencies.writerStreamMs),
    FAULT_EDITING_TASK_MS: String(latencies.polishTaskMs),
    ...(options.concurrency ? { WORKER_CONCURRENCY: String(options.concurrency) } : {}),
    ...(options.contentFlushMs !== undefined ? { CONTENT_FLUSH_MS: String(options.contentFlushMs) } : {}),
    // One key sends every story and the probes: 10,000 stories and a probe live at once pass the
    // default bound of live runs per key (10,000), which would refuse the last batch.
    RUNS_MAX_LIVE_PER_KEY: String(options.stories + 1000),
    ...(options.dispatchAhead ? { DISPATCH_AHEAD: String(options.dispatchAhead) } : {}),
  };
  const workerSettings = loadWorkersEnv({ ...env, QUEUE_PREFIX: prefix });
  // What the workers will run with: their own parse of the same variables.
  const queues = workerSettings.queues;
  const concurrencyOf = (service: ToolServiceKey) => queues[toolQueue(service)]?.concurrency ?? 1;
  const polishSeenMs = asyncSeenAfterMs(latencies.polishTaskMs);
  const bound = completionBound({
    stories: options.stories,
    workers,
    stages: {
      search: { callsPerStory: 1, callMs: latencies.searchMs, concurrency: concurrencyOf('search') },
      outline: { callsPerStory: 1, callMs: latencies.outlineMs, concurrency: concurrencyOf('outline') },
      writing: { callsPerStory: 4, callMs: latencies.writerStreamMs, concurrency: concurrencyOf('writing') },
      editing: { callsPerStory: 1, callMs: polishSeenMs, concurrency: concurrencyOf('editing') },
    },
  });
  say(`realistic: ${options.stories} stories, ${workers} workers × ${concurrencyOf('writing')} per queue; the bound is ${bound.seconds} s (${bound.limiting_stage})`);

  const loadAtStart = os.loadavg()[0] ?? 0;
  const stack = await startChaosStack({ redis: { url: options.redisUrl }, scenario: 'bench-realistic', prefix, env, workers });
  const redis = createRedisClient(options.redisUrl);
  try {
    const pids = Object.fromEntries(stack.children.all.map((c) => [c.name, c.process.pid as number]));
    // The baseline runs half its stories before Switchyard's batch and half after, so that a
    // neighbour's load that comes or goes meanwhile weighs on both alike.
    const baselineStories = options.baselineStories ?? options.stories;
    const baselineHalf =
      options.baseline === false
        ? undefined
        : (stories: number) =>
            benchRealisticBaseline({
              redisUrl: options.redisUrl,
              stories,
              workers,
              concurrency: concurrencyOf('writing'),
              lockDurationMs: workerSettings.lockDurationMs,
              lockRenewMs: workerSettings.lockRenewMs,
              stalledIntervalMs: workerSettings.stalledIntervalMs,
              toolServices: stack.toolServices,
              toolKey: stack.toolKey,
              toolPids: Object.fromEntries(Object.entries(pids).filter(([name]) => name === 'tool-services')),
              timeoutMs: options.timeoutMs ?? Math.max(120_000, 4 * bound.seconds * 1000),
            });
    const baselineBefore = baselineHalf ? await baselineHalf(Math.max(1, Math.floor(baselineStories / 2))) : undefined;
    const before = await redisCounters(options.redisUrl);
    // A worker that died at start and was started again has a new pid: it is simply not counted.
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, readProcessIfAlive(pid)?.cpuS ?? 0]));
    const idleWorkerMb = median(Object.entries(pids).filter(([n]) => n.startsWith('worker-')).flatMap(([, pid]) => readProcessIfAlive(pid)?.rssMb ?? []));
    // BullMQ's keys are under the deployment's shared tag (`{prefix}`, see keyspace).
    const activeKeys = Object.fromEntries(TOOL_SERVICE_KEYS.map((s) => [s, `${keyspace(prefix).shared}:${toolQueue(s)}:active`]));
    const sampler = startSampler({ pids, redis, activeKeys });
    const probe = startPostProbe({ apiUrl: stack.apiUrl, headers: stack.headers, perSecond: options.probesPerSecond ?? 2 });

    const started = performance.now();
    const { batchIds, runIds } = await submit(stack, options.stories, batchSize);
    const acceptedS = (performance.now() - started) / 1000;
    say(`realistic: ${runIds.length} stories accepted in ${acceptedS.toFixed(1)} s; waiting for them to end…`);
    const counts = await untilBatchesEnd(stack, batchIds, options.timeoutMs ?? Math.max(120_000, 4 * bound.seconds * 1000));
    const completionS = (performance.now() - started) / 1000;
    const [samples, post] = await Promise.all([sampler.stop(), probe.stop()]);
    const cpu = Object.fromEntries(
      Object.entries(pids).flatMap(([name, pid]) => {
        try {
          const cpuS = readProcess(pid).cpuS - (cpuBefore[name] ?? 0);
          return [[name, { cpu_s: round(cpuS, 1), cores: round(cpuS / completionS, 2), ms_per_story: round((cpuS * 1000) / options.stories, 2) }]];
        } catch {
          return [];
        }
      }),
    );
    const during = await redisCounters(options.redisUrl);
    // What the stack's processes and Redis spent, spread over every core: no schedule can beat it.
    const cpuFloorS = (Object.values(cpu).reduce((sum, use) => sum + use.cpu_s, 0) + during.cpuS - before.cpuS) / os.cpus().length;
    say('realistic: counting the content events the runs recorded…');
    const content = await countContentEvents({ redis, prefix, runIds });
    const stageTimes = await stageSeconds({ redis, prefix, runIds });
    say('realistic: waiting for the workers to compact the ended runs…');
    const compaction = await untilCompacted({ redis, prefix, pids, stories: options.stories });
    const after = await redisCounters(options.redisUrl);
    const kept = await keptBytesPerRun({ redis, prefix, runIds });
    const baselineAfter = baselineHalf ? await baselineHalf(baselineStories - Math.floor(baselineStories / 2)) : undefined;
    const baseline = baselineBefore && baselineAfter ? combineBaselines(baselineBefore, baselineAfter) : undefined;
    const peakUsed = Math.max(...samples.map((s) => s.redisUsedBytes));
    const perRun = (bytes: number) => Math.round((bytes - before.usedBytes) / options.stories);
    return {
      stories: options.stories,
      workers,
      concurrency_per_queue: Object.fromEntries(TOOL_SERVICE_KEYS.map((s) => [s, concurrencyOf(s)])),
      latencies_ms: { search: latencies.searchMs, outline: latencies.outlineMs, writer_stream: latencies.writerStreamMs, polish_task: latencies.polishTaskMs, polish_seen_by_client: polishSeenMs },
      completion: {
        seconds: round(completionS, 1),
        accepted_s: round(acceptedS, 1),
        counts,
        all_completed: (counts.completed ?? 0) === options.stories,
        bound_s: bound.seconds,
        bound,
        measured_over_bound: round(completionS / bound.seconds, 2),
        /** The stack's CPU seconds (its processes and Redis) over the machine's cores. */
        cpu_floor_s: round(cpuFloorS, 1),
        /** What a step job of each queue really took (a sample of the last completed), against the call time the bound assumed. */
        stage_seconds: stageTimes,
        target_max: TARGET_RATIO,
        met: completionS / bound.seconds <= TARGET_RATIO,
      },
      content_events: { flush_ms: workerSettings.contentFlushMs, total: content.total, per_story: round(content.total / options.stories, 1), per_s_mean: round(content.total / completionS, 1), per_s_peak: content.peakPerSecond },
      post_stories_ms: post,
      rss_mb: Object.fromEntries(Object.keys(pids).map((name) => [name, spread(samples.flatMap((s) => (s.rssMb[name] === undefined ? [] : [s.rssMb[name]])))])),
      cpu: { ...cpu, redis: { cpu_s: round(during.cpuS - before.cpuS, 1), cores: round((during.cpuS - before.cpuS) / completionS, 2), ms_per_story: round(((during.cpuS - before.cpuS) * 1000) / options.stories, 2) } } as Record<string, CpuUse>,
      in_flight: { ...memoryPerInFlight(samples, idleWorkerMb, workers), peak_by_queue: Object.fromEntries(TOOL_SERVICE_KEYS.map((s) => [s, Math.max(0, ...samples.map((x) => x.active[s] ?? 0))])) },
      /** Folding the ended runs into their archives, after the last ended: how long, and the workers' CPU meanwhile (idle work included). */
      compaction,
      redis_memory: { baseline_mb: round(before.usedBytes / 2 ** 20, 1), peak_mb: round(peakUsed / 2 ** 20, 1), after_mb: round(after.usedBytes / 2 ** 20, 1), bytes_per_run_peak: perRun(peakUsed), bytes_per_run_after: perRun(after.usedBytes), kept_bytes_per_run: kept },
      against_baseline: baseline ? againstBaseline(cpu, round(((during.cpuS - before.cpuS) * 1000) / options.stories, 2), baseline) : null,
      load_avg_1m: { start: round(loadAtStart, 2), end: round(os.loadavg()[0] ?? 0, 2) },
    };
  } finally {
    redis.disconnect();
    await stack.close();
  }
}

export type RealisticReport = Awaited<ReturnType<typeof benchRealistic>>;
