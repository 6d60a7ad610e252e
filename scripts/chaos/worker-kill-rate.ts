/**
 * Failover at a rate: a realistic batch (tool latencies as the realistic bench's) run twice on one
 * stack, first untouched, then with a worker SIGKILLed every `killEveryMs` (the launcher starts it
 * again). Reports the time each kill added to the batch, how soon the killed worker's in-flight
 * steps were taken over (each job BullMQ found stalled: when it started again, after the kill),
 * steps retaken, and what the audit finds: steps redone after they completed, duplicated
 * completions, stuck or failed runs.
 */
import type { Redis } from 'ioredis';
import { TOOL_SERVICE_KEYS } from '@switchyard/contracts';
import { toolQueue } from '@switchyard/pipeline';
import { createRedisClient, keyspace } from '@switchyard/redis';
import { auditRuns } from './audit.js';
import { say, withStack, type ChaosStack, type ScenarioResult } from './harness.js';
import type { RestartableRedis } from '@switchyard/redis';

export interface WorkerKillRateOptions {
  redis: Pick<RestartableRedis, 'url'>;
  stories: number;
  killEveryMs: number;
  /** Search and outline latency, each writer's stream, polish's task (ms); default the realistic bench's. */
  latencies?: { searchMs: number; outlineMs: number; writerStreamMs: number; polishTaskMs: number };
  /** Extra worker settings (e.g. LOCK_DURATION_MS) on top of the defaults. */
  env?: Record<string, string>;
}

const REALISTIC = { searchMs: 300, outlineMs: 1000, writerStreamMs: 3000, polishTaskMs: 2000 };
const seconds = (ms: number) => Math.round(ms / 100) / 10;

interface RunView {
  status: string;
  stages: { name: string; attempts: number }[];
}

async function runBatch(stack: ChaosStack, stories: number, label: string): Promise<{ runIds: string[]; startedAt: number }> {
  const runIds: string[] = [];
  const startedAt = Date.now();
  for (let from = 0; from < stories; from += 1000) {
    const items = Array.from({ length: Math.min(1000, stories - from) }, (_, i) => ({ topic: `${label} ${from + i}` }));
    runIds.push(...(await stack.post<{ run_ids: string[] }>('/v1/batches', { items })).run_ids);
  }
  return { runIds, startedAt };
}

/** Polls until every run has ended; the time it took from `startedAt`. */
async function untilEnded(stack: ChaosStack, runIds: string[], startedAt: number, timeoutMs: number, during?: () => Promise<void>): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; ; i = (i + 1) % runIds.length) {
    // Runs end roughly in order: the first one not ended is the one to wait on.
    const view = await stack.get<RunView>(`/v1/runs/${runIds[i]}`);
    if (!['completed', 'failed', 'cancelled'].includes(view.body.status)) {
      if (Date.now() > deadline) return Number.NaN;
      await during?.();
      await new Promise((r) => setTimeout(r, 250));
      i -= 1;
      continue;
    }
    if (i === runIds.length - 1) return Date.now() - startedAt;
  }
}

/** When BullMQ found each job stalled (its `stalled` event), ms after the kill, reading each queue's events from `from` on. */
async function stalledEvents(redis: Redis, queues: string[], from: Record<string, string>, killedAt: number, found: Map<string, number>): Promise<void> {
  for (const queue of queues) {
    const entries = (await redis.xrange(`${queue}:events`, `(${from[queue] ?? `${killedAt}-0`}`, '+', 'COUNT', 5000)) as [string, string[]][];
    for (const [id, fields] of entries) {
      from[queue] = id;
      if (fields[1] !== 'stalled') continue;
      const jobId = fields[fields.indexOf('jobId') + 1];
      if (jobId) found.set(`${queue}:${jobId}`, Number(id.split('-')[0]) - killedAt);
    }
  }
}

/**
 * The jobs active on the step queues when a worker was killed, watched until each has either
 * finished (gone) or started again after BullMQ found it stalled: when it was found stalled
 * (detection) and when a worker started it again (which also waits for a free slot), after the kill.
 */
async function watchTakeover(redis: Redis, prefix: string, killedAt: number, giveUpMs: number): Promise<{ detected: number[]; restarted: number[] }> {
  const base = keyspace(prefix).shared;
  const queues = TOOL_SERVICE_KEYS.map((s) => `${base}:${toolQueue(s)}`);
  const active = (await Promise.all(queues.map(async (q) => (await redis.lrange(`${q}:active`, 0, -1)).map((id) => `${q}:${id}`)))).flat();
  const pending = new Set(active);
  const stalled = new Map<string, number>();
  const readFrom: Record<string, string> = {};
  const restarted: number[] = [];
  const deadline = killedAt + giveUpMs;
  while (pending.size > 0 && Date.now() < deadline) {
    await stalledEvents(redis, queues, readFrom, killedAt, stalled);
    const keys = [...pending];
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.hmget(key, 'stc', 'processedOn');
    const replies = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const [stalledCount, processedOn] = (replies[i]?.[1] ?? [null, null]) as [string | null, string | null];
      if (stalledCount === null && processedOn === null) pending.delete(key); // finished and removed
      else if (Number(stalledCount ?? 0) > 0 && Number(processedOn) > killedAt) {
        restarted.push(Number(processedOn) - killedAt);
        pending.delete(key);
      }
    });
    await new Promise((r) => setTimeout(r, 200));
  }
  await stalledEvents(redis, queues, readFrom, killedAt, stalled);
  return { detected: active.flatMap((key) => (stalled.has(key) ? [stalled.get(key) as number] : [])), restarted };
}

const quantiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? null : seconds(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0));
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), max: sorted.length === 0 ? null : seconds(sorted.at(-1) ?? 0) };
};

export async function workerKillRate(options: WorkerKillRateOptions): Promise<ScenarioResult> {
  const latencies = options.latencies ?? REALISTIC;
  const env = {
    FAULT_SEARCH_LATENCY_MS: String(latencies.searchMs),
    FAULT_OUTLINE_LATENCY_MS: String(latencies.outlineMs),
    FAULT_WRITING_STREAM_MS: String(latencies.writerStreamMs),
    FAULT_EDITING_TASK_MS: String(latencies.polishTaskMs),
    ...options.env,
  };
  return withStack({ redis: options.redis, scenario: 'worker-kill-rate', env, workers: 2 }, async (stack) => {
    const redis = createRedisClient(options.redis.url);
    try {
      const timeoutMs = Math.max(600_000, options.stories * 1000);
      const reference = await runBatch(stack, options.stories, 'an untouched lighthouse');
      const referenceMs = await untilEnded(stack, reference.runIds, reference.startedAt, timeoutMs);
      say(`  worker-kill-rate: ${options.stories} stories untouched in ${seconds(referenceMs)} s`);

      const killed = await runBatch(stack, options.stories, 'a lighthouse whose keepers come and go');
      const takeovers: Promise<{ detected: number[]; restarted: number[] }>[] = [];
      let nextKill = killed.startedAt + options.killEveryMs;
      let kills = 0;
      const killWhenDue = async () => {
        if (Date.now() < nextKill) return;
        nextKill += options.killEveryMs;
        const victim = stack.workers()[kills % 2] ?? stack.workers()[0];
        if (!victim) return; // both are being started again
        const killedAt = Date.now();
        victim.process.kill('SIGKILL');
        kills += 1;
        takeovers.push(watchTakeover(redis, stack.prefix, killedAt, 60_000));
        say(`  worker-kill-rate: ${victim.name} killed (${kills})`);
      };
      const killedMs = await untilEnded(stack, killed.runIds, killed.startedAt, timeoutMs, killWhenDue);
      const watched = await Promise.all(takeovers);
      const detected = watched.flatMap((w) => w.detected);
      const restarts = watched.flatMap((w) => w.restarted);
      const audit = await auditRuns(stack, killed.runIds, { endWithinMs: 120_000 });
      let retaken = 0;
      for (const runId of killed.runIds) {
        const view = await stack.get<RunView>(`/v1/runs/${runId}`);
        retaken += view.body.stages.reduce((sum, s) => sum + Math.max(0, s.attempts - 1), 0);
      }
      const figures = {
        stories: options.stories,
        kill_every_s: seconds(options.killEveryMs),
        kills,
        untouched_s: seconds(referenceMs),
        with_kills_s: seconds(killedMs),
        added_s_per_kill: kills > 0 ? seconds((killedMs - referenceMs) / kills) : null,
        /**
         * Jobs of the killed worker found stalled and put back to wait: seconds after the kill. A
         * figure, not a pass mark: the lock settings promise LOCK_DURATION_MS + STALLED_INTERVAL_MS
         * of a live, unstarved process, and a loaded machine adds its own delay.
         */
        stalled_found_s: quantiles(detected),
        /** The same jobs started again by a worker: seconds after the kill (includes waiting for a free slot). */
        restarted_s: quantiles(restarts),
        steps_retaken: retaken,
        ...audit,
      };
      // Ending while the kills go on is a figure (with_kills_s, null past the time given): on a loaded
      // machine a replacement may take longer to start than the kills leave it. The audit, which waits for
      // the runs once the kills stop, is the pass mark.
      const passed = kills > 0 && audit.completed === options.stories && audit.stuck === 0 && audit.lost === 0 && audit.redone_stages === 0 && audit.duplicated_events === 0;
      return { scenario: 'worker-kill-rate', passed, figures };
    } finally {
      redis.disconnect();
    }
  });
}
