/**
 * What the production build changes at start-up: each service started from its sources through
 * tsx and from its compiled JavaScript, in alternating rounds, measured until it is ready (its
 * /health answers; for workers, the "workers ready" line). For each: the median wall time to
 * ready, the CPU the process spent getting there (from /proc, steadier than wall time on a shared
 * machine) and its resident memory once ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { freePort, uniquePrefix } from '@switchyard/redis';
import { nodeArguments, type Runtime } from '../launcher/runtime.js';
import { median } from './story-stats.js';

const TICKS_PER_S = 100; // USER_HZ on Linux
const SERVICES = ['tool-services', 'orchestrator', 'workers', 'mcp-bridge'] as const;
type Service = (typeof SERVICES)[number];

interface Sample {
  ready_ms: number;
  cpu_ms: number;
  rss_mb: number;
}

/** CPU time (user + system) and resident memory of a live process, from /proc. */
function processFigures(pid: number): { cpuMs: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return { cpuMs: (ticks * 1000) / TICKS_PER_S, rssMb: Math.round(rssKb / 102.4) / 10 };
}

async function untilHealthAnswers(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const answered = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function untilLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      if (pattern.test(seen)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the process exited with ${code} before it was ready: ${seen.slice(-500)}`)));
  });
}

async function startOnce(options: { service: Service; runtime: Runtime; env: Record<string, string> }): Promise<Sample> {
  const port = await freePort();
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...options.env, PORT: String(port), LOG_LEVEL: 'info' };
  if (options.service === 'tool-services') Object.assign(env, { SEARCH_SERVICE_PORT: String(port), OUTLINE_SERVICE_PORT: '0', WRITING_SERVICE_PORT: '0', EDITING_SERVICE_PORT: '0', MODEL_SERVICE_PORT: '0' });
  const started = performance.now();
  const child = spawn(process.execPath, nodeArguments({ entry: `services/${options.service}/src/main.ts`, runtime: options.runtime, exitWithParent: false }), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    if (options.service === 'workers') await untilLine(child, /workers ready/);
    else {
      child.stdout?.resume();
      await untilHealthAnswers(`http://127.0.0.1:${port}/health`, child);
    }
    const readyMs = performance.now() - started;
    const { cpuMs, rssMb } = processFigures(child.pid as number);
    return { ready_ms: Math.round(readyMs), cpu_ms: Math.round(cpuMs), rss_mb: rssMb };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

const summary = (samples: Sample[]) => ({
  ready_ms: median(samples.map((s) => s.ready_ms)),
  cpu_ms: median(samples.map((s) => s.cpu_ms)),
  rss_mb: median(samples.map((s) => s.rss_mb)),
});

/**
 * @param options.redisUrl the Redis the orchestrator, workers and bridge connect to
 * @param options.toolServicesUrl a running search service (the others are named but not asked at start)
 * @param options.rounds starts of each service in each runtime (alternating)
 */
export async function benchStartup(options: { redisUrl: string; toolEnv: Record<string, string>; rounds: number }) {
  const samples = new Map<string, Sample[]>();
  for (let round = 0; round < options.rounds; round += 1) {
    for (const service of SERVICES) {
      for (const runtime of round % 2 === 0 ? (['tsx', 'compiled'] as const) : (['compiled', 'tsx'] as const)) {
        process.stderr.write(`start-up round ${round + 1}/${options.rounds}: ${service} (${runtime})…\n`);
        const env = { REDIS_URL: options.redisUrl, QUEUE_PREFIX: uniquePrefix('bench-startup'), API_KEYS: 'bench-startup-key', ...options.toolEnv };
        const key = `${service}/${runtime}`;
        samples.set(key, [...(samples.get(key) ?? []), await startOnce({ service, runtime, env })]);
      }
    }
  }
  const services = Object.fromEntries(
    SERVICES.map((service) => {
      const tsx = summary(samples.get(`${service}/tsx`) ?? []);
      const compiled = summary(samples.get(`${service}/compiled`) ?? []);
      return [service, { tsx, compiled, compiled_over_tsx: { ready: ratio(compiled.ready_ms, tsx.ready_ms), cpu: ratio(compiled.cpu_ms, tsx.cpu_ms), rss: ratio(compiled.rss_mb, tsx.rss_mb) } }];
    }),
  );
  return { rounds: options.rounds, load_avg_1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100, services };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : null);
