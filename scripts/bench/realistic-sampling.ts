/**
 * What the realistic bench watches while its stories run, once a second: each process's resident
 * memory and CPU from /proc, Redis' memory, the jobs active on each step queue; and, a few times a
 * second, how long a single `POST /v1/stories` takes.
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { median, round, summarize } from './story-stats.js';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** CPU seconds (user + system) and resident MB of a live process, from /proc. */
export function readProcess(pid: number): { cpuS: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpuS: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S, rssMb: rssKb / 1024 };
}

/** As readProcess, or undefined for a process that is gone (a worker the launcher restarted). */
export function readProcessIfAlive(pid: number): { cpuS: number; rssMb: number } | undefined {
  try {
    return readProcess(pid);
  } catch {
    return undefined;
  }
}

/** min / median / max of a series, and the median of each quarter (flat when they agree). */
export function spread(values: readonly number[]) {
  const quarter = Math.max(1, Math.floor(values.length / 4));
  return {
    samples: values.length,
    min: round(Math.min(...values), 1),
    median: round(median(values), 1),
    max: round(Math.max(...values), 1),
    first_quarter_median: round(median(values.slice(0, quarter)), 1),
    last_quarter_median: round(median(values.slice(-quarter)), 1),
    /** Each quarter's median, in order: flat after warm-up when the last three agree. */
    quarter_medians: [0, 1, 2, 3].map((q) => round(median(values.slice(q * quarter, q === 3 ? undefined : (q + 1) * quarter)), 1)),
  };
}

export interface Sample {
  atS: number;
  rssMb: Record<string, number>;
  redisUsedBytes: number;
  /** Active jobs per step queue. */
  active: Record<string, number>;
}

/**
 * Samples every `everyMs` until stopped.
 * @param options.pids process name → pid
 * @param options.activeKeys queue name → its BullMQ active list key
 */
export function startSampler(options: { pids: Record<string, number>; redis: Redis; activeKeys: Record<string, string>; everyMs?: number }) {
  const samples: Sample[] = [];
  const started = performance.now();
  let stopped = false;
  const take = async () => {
    const rssMb: Record<string, number> = {};
    for (const [name, pid] of Object.entries(options.pids)) {
      try {
        rssMb[name] = readProcess(pid).rssMb;
      } catch {
        // a process that is gone (a restarted worker) has no sample this second
      }
    }
    const pipeline = options.redis.pipeline();
    for (const key of Object.values(options.activeKeys)) pipeline.llen(key);
    pipeline.info('memory');
    const replies = (await pipeline.exec()) ?? [];
    const active = Object.fromEntries(Object.keys(options.activeKeys).map((name, i) => [name, Number(replies[i]?.[1] ?? 0)]));
    const memory = String(replies.at(-1)?.[1] ?? '');
    samples.push({ atS: (performance.now() - started) / 1000, rssMb, redisUsedBytes: Number(/used_memory:(\d+)/.exec(memory)?.[1] ?? 0), active });
  };
  const loop = (async () => {
    while (!stopped) {
      const next = performance.now() + (options.everyMs ?? 1000);
      await take().catch(() => undefined);
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
  })();
  return {
    samples,
    async stop(): Promise<Sample[]> {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

/**
 * Posts a single story `perSecond` times a second and cancels it at once (so the probes add
 * little load), recording how long each POST took.
 */
export function startPostProbe(options: { apiUrl: string; headers: Record<string, string>; perSecond: number }) {
  const latencies: number[] = [];
  let errors = 0;
  let stopped = false;
  const once = async (i: number) => {
    const started = performance.now();
    try {
      const res = await fetch(`${options.apiUrl}/v1/stories`, { method: 'POST', headers: options.headers, body: JSON.stringify({ topic: `probe ${i}` }), signal: AbortSignal.timeout(30_000) });
      const body = (await res.json()) as { run_id?: string };
      if (res.status !== 202 || !body.run_id) throw new Error(`HTTP ${res.status}`);
      latencies.push(performance.now() - started);
      await fetch(`${options.apiUrl}/v1/runs/${body.run_id}`, { method: 'DELETE', headers: options.headers, signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer());
    } catch {
      errors += 1;
    }
  };
  const pending: Promise<void>[] = [];
  const loop = (async () => {
    for (let i = 0; !stopped; i += 1) {
      pending.push(once(i));
      await new Promise((r) => setTimeout(r, 1000 / options.perSecond));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await Promise.all(pending);
      return { ...summarize(latencies), errors };
    },
  };
}
