/**
 * What the runs left behind, read after they ended: the `content` events each run recorded (its
 * event stream read in pipelines of a few dozen runs, no SSE subscriptions; the busiest second
 * from the events' stream ids, which are their append times in milliseconds), and how long the
 * step jobs of each queue really held their slot.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { runKeys } from '@switchyard/pipeline';
import { KeyedPipeline } from '@switchyard/redis';
import { median, round } from './story-stats.js';

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
    const pipeline = new KeyedPipeline(options.redis);
    for (const runId of options.runIds.slice(from, from + RUNS_PER_PIPELINE)) pipeline.on(keys.events(runId)).xrange(keys.events(runId), '-', '+');
    for (const [, reply] of await pipeline.exec()) {
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

/**
 * Seconds from a job's start to its end (BullMQ's processedOn and finishedOn), over `windows`
 * runs of 20 completed jobs spread evenly from the first to finish to the last: the call time the
 * bound assumed, as it turned out over the whole batch.
 */
export async function stageSeconds(options: { redis: Redis; prefix: string; queues: Record<string, string>; windows?: number }): Promise<Record<string, { median: number; max: number; jobs: number }>> {
  const windows = options.windows ?? 10;
  const entries = await Promise.all(
    Object.entries(options.queues).map(async ([name, queueName]) => {
      const queue = new Queue(queueName, { connection: options.redis, prefix: options.prefix });
      try {
        const count = await queue.getCompletedCount();
        const starts = [...new Set(Array.from({ length: windows }, (_, i) => Math.floor((i * Math.max(0, count - 20)) / Math.max(1, windows - 1))))];
        const jobs = (await Promise.all(starts.map((start) => queue.getCompleted(start, start + 19)))).flat();
        const unique = [...new Map(jobs.map((job) => [job.id, job])).values()];
        const seconds = unique.flatMap((job) => (job.processedOn && job.finishedOn ? [(job.finishedOn - job.processedOn) / 1000] : []));
        return [name, { median: round(median(seconds), 2), max: round(Math.max(0, ...seconds), 2), jobs: seconds.length }] as const;
      } finally {
        await queue.close();
      }
    }),
  );
  return Object.fromEntries(entries);
}
