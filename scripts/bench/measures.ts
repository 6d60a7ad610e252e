/**
 * The three measurements of `npm run bench` besides module search: throughput against the
 * plain-BullMQ baseline, stage-hop latency, and accepting a 10,000-item batch.
 */
import { uniquePrefix } from '@switchyard/redis';
import { runBaseline } from './baseline.js';
import { startOrchestratorOnly } from './accept-only.js';
import { startBenchStack } from './switchyard.js';
import type { ToolPhase } from './zero-tools.js';

export interface Sample {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export function summarize(values: number[]): Sample {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { p50: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1) ?? Number.NaN), count: sorted.length };
}

/** Stories per second through the API and workers, and through the baseline, on equal terms. */
export async function measureThroughput(options: { redisUrl: string; stories: number; concurrency: number; prefixes: string[] }) {
  const basePrefix = uniquePrefix('bench-base');
  options.prefixes.push(basePrefix);
  const baseline = await runBaseline({ redisUrl: options.redisUrl, prefix: basePrefix, stories: options.stories, concurrency: options.concurrency });

  const prefix = uniquePrefix('bench-sy');
  options.prefixes.push(prefix);
  const stack = await startBenchStack({ redisUrl: options.redisUrl, prefix, concurrency: options.concurrency });
  const started = performance.now();
  const items = Array.from({ length: options.stories }, (_, i) => ({ topic: `bench story ${i}` }));
  const { body } = await stack.post<{ batch_id: string }>('/v1/batches', { items });
  await stack.waitForBatch(body.batch_id);
  const seconds = (performance.now() - started) / 1000;
  await stack.close();

  const switchyardRate = options.stories / seconds;
  const baselineRate = options.stories / baseline.seconds;
  return { stories: options.stories, concurrency_per_queue: options.concurrency, switchyard_stories_per_s: Math.round(switchyardRate * 10) / 10, baseline_stories_per_s: Math.round(baselineRate * 10) / 10, ratio: Math.round((switchyardRate / baselineRate) * 1000) / 1000 };
}

/**
 * Time from one stage's tool call returning to the next stage's tool call starting, stories run
 * one at a time on an idle system: what a hop through Redis, BullMQ and the run store costs.
 */
export async function measureHops(options: { redisUrl: string; stories: number; prefixes: string[] }) {
  const prefix = uniquePrefix('bench-hops');
  options.prefixes.push(prefix);
  const marks: { phase: ToolPhase; edge: 'enter' | 'exit'; at: number }[] = [];
  const stack = await startBenchStack({ redisUrl: options.redisUrl, prefix, concurrency: 4, onCall: (e) => marks.push(e) });
  const hops: number[] = [];
  for (let i = 0; i < options.stories; i += 1) {
    marks.length = 0;
    const { body } = await stack.post<{ batch_id: string }>('/v1/batches', { items: [{ topic: `hop story ${i}` }] });
    await stack.waitForBatch(body.batch_id);
    const first = (phase: ToolPhase, edge: 'enter' | 'exit') => marks.filter((m) => m.phase === phase && m.edge === edge).map((m) => m.at);
    const [searchExit] = first('search', 'exit');
    const [outlineEnter] = first('outline', 'enter');
    const [outlineExit] = first('outline', 'exit');
    const writeEnters = first('write', 'enter');
    const writeExits = first('write', 'exit');
    const [polishEnter] = first('polish', 'enter');
    if (searchExit === undefined || outlineEnter === undefined || outlineExit === undefined || polishEnter === undefined) continue;
    hops.push(outlineEnter - searchExit, Math.min(...writeEnters) - outlineExit, polishEnter - Math.max(...writeExits));
  }
  await stack.close();
  return { stories: options.stories, hops_ms: summarize(hops) };
}

/** Seconds until a 10,000-item batch is accepted (the 202). */
export async function measureAccept(options: { redisUrl: string; items: number; prefixes: string[] }) {
  const prefix = uniquePrefix('bench-accept');
  options.prefixes.push(prefix);
  // No worker takes the dispatch job here: only accepting is measured.
  const api = await startOrchestratorOnly({ redisUrl: options.redisUrl, prefix });
  const items = Array.from({ length: options.items }, (_, i) => ({ topic: `accepted story number ${i} about a river that forgets its course` }));
  const started = performance.now();
  const res = await api.post('/v1/batches', { items, defaults: { style: 'concise' } });
  const seconds = (performance.now() - started) / 1000;
  await api.close();
  if (res.status !== 202) throw new Error(`the batch was not accepted: HTTP ${res.status}`);
  return { items: options.items, seconds: Math.round(seconds * 1000) / 1000 };
}
