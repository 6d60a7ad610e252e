/**
 * What the runs left behind, read after they ended: the `content` events each run recorded (its
 * event stream read in pipelines of a few dozen runs, no SSE subscriptions; the busiest second
 * from the events' stream ids, which are their append times in milliseconds), and how long the
 * stages of each tool service really took.
 */
import type { Redis } from 'ioredis';
import { readRunHistories, RunStore, runKeys } from '@switchyard/pipeline';
import { median, round } from './story-stats.js';

export async function countContentEvents(options: { redis: Redis; prefix: string; runIds: readonly string[] }): Promise<{ total: number; peakPerSecond: number }> {
  const perSecond = new Map<number, number>();
  let total = 0;
  // Compacted runs keep their events in their archives, under the same ids: read either way.
  for (const events of await readRunHistories(options.redis, runKeys(options.prefix), options.runIds)) {
    for (const { id, type } of events) {
      if (type !== 'content') continue;
      total += 1;
      const second = Math.floor(Number(id.split('-')[0]) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
  }
  return { total, peakPerSecond: Math.max(0, ...perSecond.values()) };
}

/** The tool service a story stage calls: `write.<section>` is the writing service's. */
const SERVICE_OF_STAGE: Record<string, string> = { search: 'search', outline: 'outline', write: 'writing', polish: 'editing' };

/**
 * Seconds from a stage's start to its end (its record in the run: completed step jobs are removed
 * at once), over `samples` runs spread evenly over the batch: the call time the bound assumed, as
 * it turned out over the whole batch.
 */
export async function stageSeconds(options: { redis: Redis; prefix: string; runIds: readonly string[]; samples?: number }): Promise<Record<string, { median: number; max: number; stages: number }>> {
  const store = new RunStore({ redis: options.redis, prefix: options.prefix });
  const samples = Math.min(options.samples ?? 200, options.runIds.length);
  const picked = [...new Set(Array.from({ length: samples }, (_, i) => options.runIds[Math.floor((i * options.runIds.length) / samples)] as string))];
  const seconds = new Map<string, number[]>();
  for (const run of await Promise.all(picked.map((id) => store.getRun(id)))) {
    for (const stage of run?.stages ?? []) {
      const service = SERVICE_OF_STAGE[stage.name.split('.')[0] ?? ''];
      if (!service || !stage.started_at || !stage.finished_at) continue;
      seconds.set(service, [...(seconds.get(service) ?? []), (Date.parse(stage.finished_at) - Date.parse(stage.started_at)) / 1000]);
    }
  }
  return Object.fromEntries([...seconds].map(([service, list]) => [service, { median: round(median(list), 2), max: round(Math.max(0, ...list), 2), stages: list.length }]));
}

/**
 * What finished runs keep, by `MEMORY USAGE … SAMPLES 0` over each run's keys (hash, events,
 * archive, outputs), over `samples` runs spread evenly over the batch; the median and the largest.
 */
export async function keptBytesPerRun(options: { redis: Redis; prefix: string; runIds: readonly string[]; samples?: number }): Promise<{ median: number; max: number; runs: number }> {
  const keys = runKeys(options.prefix);
  const samples = Math.min(options.samples ?? 100, options.runIds.length);
  const picked = [...new Set(Array.from({ length: samples }, (_, i) => options.runIds[Math.floor((i * options.runIds.length) / samples)] as string))];
  const pipeline = options.redis.pipeline();
  for (const id of picked) for (const key of [keys.run(id), keys.events(id), keys.archive(id), keys.outputs(id)]) pipeline.memory('USAGE', key, 'SAMPLES', 0);
  const replies = (await pipeline.exec()) ?? [];
  const bytes = picked.map((_, i) => replies.slice(4 * i, 4 * i + 4).reduce((sum, [, value]) => sum + Number(value ?? 0), 0));
  return { median: Math.round(median(bytes)), max: Math.max(0, ...bytes), runs: picked.length };
}
