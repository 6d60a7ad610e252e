/**
 * The orchestrator's memory over a story load: the orchestrator as a process of its own (as
 * deployed), workers in this process calling the instant tools, and clients that start stories
 * (POST /v1/stories), follow each over SSE to its `done`, and poll the runs list as the dashboard
 * does. Its RSS and V8 heap (from its own /metrics) are sampled before the load, after each round,
 * and after a pause; a growth that rounds keep adding to is a leak, one that stops is the heap's
 * high-water mark. Prints one JSON document.
 *
 *   npx tsx scripts/bench/orchestrator-memory.ts     MEMORY_STORIES (default 2000 a round), MEMORY_ROUNDS (2), MEMORY_CLIENTS (25)
 *
 * Each sample is taken after a heap snapshot (SIGUSR2), which collects first; MEMORY_KEEP_SNAPSHOTS=1
 * keeps the snapshots (their directory is printed) to open in Chrome's DevTools.
 * Redis: REDIS_URL, else a local server in `.data/redis-bench`, stopped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { createLogger } from '@switchyard/logger';
import { createRedisClient, REPO_ROOT, resolveRedis, uniquePrefix } from '@switchyard/redis';
import { startWorkers } from '@switchyard/workers';
import { createInstantTools } from './instant-tools.js';
import { deletePrefix } from './story-stats.js';

const size = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STORIES = size('MEMORY_STORIES', 2000);
const WARM_UP = Math.min(STORIES, 200);
const ROUNDS = size('MEMORY_ROUNDS', 2);
const CLIENTS = size('MEMORY_CLIENTS', 25);
const MIB = 1024 * 1024;
/** Where the orchestrator runs, and writes its heap snapshots. */
const SNAPSHOT_DIR = mkdtempSync(path.join(os.tmpdir(), 'switchyard-memory-'));

/** Starts the orchestrator's main.ts and resolves with its URL once it listens. */
async function startOrchestratorProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  // SIGUSR2 writes a heap snapshot (after a full collection) into the working directory.
  const child = spawn(process.execPath, ['--heapsnapshot-signal=SIGUSR2', '--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'services/orchestrator/src/main.ts')], { cwd: SNAPSHOT_DIR, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      const found = /"url":"(http:[^"]+)"/.exec(seen);
      if (found?.[1]) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`the orchestrator exited with ${code}`)));
  });
  // Its output is no longer read; draining it keeps the pipe from filling.
  child.stdout?.resume();
  return { child, url };
}

/**
 * RSS from /proc, and what V8 says through the orchestrator's own /metrics, after a full
 * collection (a heap snapshot makes one): what is still held, not garbage waiting for the collector.
 */
async function sample(child: ChildProcess, url: string): Promise<{ rss_mib: number; heap_used_mib: number; external_mib: number }> {
  const before = readdirSync(SNAPSHOT_DIR).length;
  child.kill('SIGUSR2');
  for (let waited = 0; readdirSync(SNAPSHOT_DIR).length === before && waited < 60_000; waited += 200) await sleep(200);
  await sleep(1000);
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
  const round = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
  return { rss_mib: round(rssKb * 1024), heap_used_mib: round(metric('nodejs_heap_size_used_bytes')), external_mib: round(metric('nodejs_external_memory_bytes')) };
}

/** One client's story: started, followed over SSE to its `done`. */
async function story(url: string, key: string, topic: string): Promise<string> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const started = await fetch(`${url}/v1/stories`, { method: 'POST', headers, body: JSON.stringify({ topic }) });
  if (started.status !== 202) throw new Error(`POST /v1/stories answered ${started.status}`);
  const { run_id: runId } = (await started.json()) as { run_id: string };
  const events = await fetch(`${url}/v1/runs/${runId}/events`, { headers });
  const reader = (events.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (value.event === 'done') {
      await reader.cancel();
      return (JSON.parse(value.data) as { status: string }).status;
    }
  }
  return 'no done';
}

async function round(url: string, key: string, label: string, stories: number): Promise<Record<string, number>> {
  let next = 0;
  const statuses: Record<string, number> = {};
  let polling = true;
  // The dashboard's runs list, every 2 s, while the round lasts.
  const dashboard = (async () => {
    while (polling) {
      await fetch(`${url}/v1/runs?limit=50`, { headers: { authorization: `Bearer ${key}` } }).then((res) => res.arrayBuffer());
      await sleep(2000);
    }
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < stories; i = next++) {
        const status = await story(url, key, `${label} story ${i}`);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  polling = false;
  await dashboard;
  return statuses;
}

const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: path.join(REPO_ROOT, '.data', 'redis-bench') });
const prefix = uniquePrefix('memory');
const key = `memory-${randomBytes(8).toString('hex')}`;
const logger = createLogger({ name: 'memory', level: 'silent' });
const workers = await startWorkers({ redisUrl: redis.url, prefix, logger, tools: createInstantTools(), defaultConcurrency: 50, compaction: { intervalMs: 1000, afterMs: 0 } });
const { child, url } = await startOrchestratorProcess({ REDIS_URL: redis.url, QUEUE_PREFIX: prefix, API_KEYS: key, PORT: '0', LOG_LEVEL: 'info' });
try {
  const samples: Record<string, unknown>[] = [{ at: 'started', ...(await sample(child, url)) }];
  await round(url, key, 'warm-up', WARM_UP);
  samples.push({ at: `after a warm-up of ${WARM_UP} stories`, ...(await sample(child, url)) });
  for (let r = 1; r <= ROUNDS; r += 1) {
    const started = performance.now();
    const statuses = await round(url, key, `round ${r}`, STORIES);
    samples.push({ at: `after round ${r} (${STORIES} stories)`, seconds: Math.round((performance.now() - started) / 100) / 10, statuses, ...(await sample(child, url)) });
    process.stderr.write(`round ${r} done\n`);
  }
  await sleep(15_000);
  samples.push({ at: 'after 15 s idle', ...(await sample(child, url)) });
  process.stdout.write(`${JSON.stringify({ stories_per_round: STORIES, clients: CLIENTS, samples, snapshots: process.env.MEMORY_KEEP_SNAPSHOTS ? SNAPSHOT_DIR : 'removed' }, null, 2)}\n`);
} finally {
  child.kill('SIGTERM');
  await workers.close(2000);
  const cleaner = createRedisClient(redis.url);
  await deletePrefix(cleaner, prefix).catch(() => undefined);
  await cleaner.quit();
  await redis.stop();
  if (!process.env.MEMORY_KEEP_SNAPSHOTS) rmSync(SNAPSHOT_DIR, { recursive: true, force: true });
}
