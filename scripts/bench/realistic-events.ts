/**
 * Counts the `content` events the runs recorded, after they ended: each run's event stream read
 * in pipelines of a few dozen runs (no SSE subscriptions), and the busiest second from the
 * events' stream ids, which are their append times in milliseconds.
 */
import type { Redis } from 'ioredis';
import { runKeys } from '@switchyard/pipeline';

const RUNS_PER_PIPELINE = 50;

/** Whether a stream entry's fields (name, value, name, value…) say `type content`. */
function isContent(fields: readonly string[]): boolean {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'type') return fields[i + 1] === 'content';
  return false;
}

export async function countContentEvents(options: { redis: Redis; prefix: string; runIds: readonly string[] }): Promise<{ total: number; peakPerSecond: number }> {
  const keys = runKeys(options.prefix);
  const perSecond = new Map<number, number>();
  let total = 0;
  for (let from = 0; from < options.runIds.length; from += RUNS_PER_PIPELINE) {
    const pipeline = options.redis.pipeline();
    for (const runId of options.runIds.slice(from, from + RUNS_PER_PIPELINE)) pipeline.xrange(keys.events(runId), '-', '+');
    for (const [, reply] of (await pipeline.exec()) ?? []) {
      for (const [id, fields] of (reply as [string, string[]][] | null) ?? []) {
        if (!isContent(fields)) continue;
        total += 1;
        const second = Math.floor(Number(id.split('-')[0]) / 1000);
        perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
      }
    }
  }
  return { total, peakPerSecond: Math.max(0, ...perSecond.values()) };
}
