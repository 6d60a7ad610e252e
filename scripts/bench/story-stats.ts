/**
 * What the benchmark's measurements share: progress lines on stderr, percentiles, removing a
 * prefix's keys, and the recorder of stage hops at the tool boundary.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { KeyedPipeline, keyspace, scanKeys } from '@switchyard/redis';
import { SECTION_ORDER } from '@switchyard/contracts';
import type { ToolProbe, ToolStage } from './instant-tools.js';

export const say = (line: string) => process.stderr.write(`${line}\n`);
/** The middle value (the lower of the two middle ones for an even count); NaN for none. */
export const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
export const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export interface Summary {
  count: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

/** Nearest-rank percentiles of `values` (ms). */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50_ms: round(at(50)), p99_ms: round(at(99)), max_ms: round(sorted.at(-1) ?? Number.NaN) };
}

/** Deletes every key of the `prefix` keyspace (SCAN and UNLINK, so Redis is never blocked for long; a key a command on a cluster). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  const keys = await scanKeys(redis, keyspace(prefix).pattern);
  let deleted = 0;
  for (let i = 0; i < keys.length; i += 1000) {
    const unlinks = new KeyedPipeline(redis);
    for (const key of keys.slice(i, i + 1000)) unlinks.on(key).unlink(key);
    deleted += (await unlinks.exec()).reduce((sum, [, count]) => sum + Number(count ?? 0), 0);
  }
  return deleted;
}

/** The hops of one story: the next stage's tool entry minus the time the stage it waited on left its tool. */
export type HopName = 'search→outline' | `outline→write.${string}` | 'write→polish';

/**
 * Records tool entries and exits of one story at a time (the story is run alone, so every call
 * belongs to it) and turns them into hops: search→outline, outline→each writer, and the last
 * writer→polish (polish waits for all four).
 */
export class HopRecorder {
  readonly hops = new Map<HopName, number[]>();
  #enter = new Map<ToolStage, number>();
  #exit = new Map<ToolStage, number>();
  #polished: (() => void) | undefined;

  readonly probe: ToolProbe = {
    enter: (stage) => void this.#enter.set(stage, performance.now()),
    exit: (stage) => {
      this.#exit.set(stage, performance.now());
      if (stage === 'polish') this.#polished?.();
    },
  };

  /** Starts a story; resolves when its polish tool has returned. */
  startStory(): Promise<void> {
    this.#enter.clear();
    this.#exit.clear();
    return new Promise((resolve) => (this.#polished = resolve));
  }

  /** Adds the finished story's hops. */
  endStory(): void {
    const need = (map: Map<ToolStage, number>, stage: ToolStage) => {
      const t = map.get(stage);
      if (t === undefined) throw new Error(`stage ${stage} was not seen`);
      return t;
    };
    const add = (name: HopName, ms: number) => {
      const list = this.hops.get(name) ?? [];
      list.push(ms);
      this.hops.set(name, list);
    };
    add('search→outline', need(this.#enter, 'outline') - need(this.#exit, 'search'));
    for (const section of SECTION_ORDER) add(`outline→write.${section}`, need(this.#enter, `write.${section}`) - need(this.#exit, 'outline'));
    const lastWriter = Math.max(...SECTION_ORDER.map((s) => need(this.#exit, `write.${s}`)));
    add('write→polish', need(this.#enter, 'polish') - lastWriter);
  }

  /** All hops together, and the p50 of each kind. */
  summary(): Summary & { p50_by_hop_ms: Record<string, number> } {
    const all = [...this.hops.values()].flat();
    return { ...summarize(all), p50_by_hop_ms: Object.fromEntries([...this.hops].map(([name, values]) => [name, summarize(values).p50_ms])) };
  }
}

/**
 * The same hops from BullMQ's own job timestamps: processedOn of a parent minus finishedOn of the
 * child it waited on (search→outline, last writer→polish); a writer, added by the outline job
 * while it runs, from its creation to processedOn. Whole milliseconds, and without the work a
 * stage does around its tool. Both systems name jobs `{story}.{stage}`; their queues differ.
 */
export type StageQueueNames = Record<'search' | 'outline' | 'write' | 'polish', string>;

export class JobHopReader {
  readonly hops: number[] = [];
  readonly #queues: Record<'search' | 'outline' | 'write' | 'polish', Queue>;

  constructor(options: { connection: Redis; prefix: string; queues: StageQueueNames }) {
    const queue = (name: string) => new Queue(name, { connection: options.connection, prefix: options.prefix });
    this.#queues = { search: queue(options.queues.search), outline: queue(options.queues.outline), write: queue(options.queues.write), polish: queue(options.queues.polish) };
  }

  async addStory(storyId: string): Promise<void> {
    const times = async (queue: Queue, stage: string) => {
      const job = await queue.getJob(`${storyId}.${stage}`);
      if (!job?.processedOn || !job.finishedOn) throw new Error(`job ${storyId}.${stage} has no timestamps`);
      return { created: job.timestamp, started: job.processedOn, finished: job.finishedOn };
    };
    const search = await times(this.#queues.search, 'search');
    const outline = await times(this.#queues.outline, 'outline');
    const writers = await Promise.all(SECTION_ORDER.map((s) => times(this.#queues.write, `write.${s}`)));
    const polish = await times(this.#queues.polish, 'polish');
    this.hops.push(outline.started - search.finished, ...writers.map((w) => w.started - w.created), polish.started - Math.max(...writers.map((w) => w.finished)));
  }

  summary(): Summary {
    return summarize(this.hops);
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.#queues).map((q) => q.close()));
  }
}
