/**
 * What the benchmark's measurements share: progress lines on stderr, percentiles, removing a
 * prefix's keys, and the recorder of stage hops at the tool boundary.
 */
import type { Job, QueueEvents, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { KeyedPipeline, keyspace, scanKeys } from '@switchyard/redis';
import { SECTION_ORDER } from '@switchyard/contracts';
import type { ToolProbe, ToolStage } from './instant-tools.js';

export const say = (line: string) => process.stderr.write(`${line}\n`);
/** The middle value (the lower of the two middle ones for an even count); NaN for none. */
export const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
export const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * A distribution-free confidence interval of the median (order statistics: the median lies
 * below the k-th smallest of n values with the binomial probability P(B(n, ½) ≥ k)): the
 * k-th smallest and k-th largest values for the largest k that keeps the coverage at least
 * `confidence` (default 0.95). Null when there are too few values for any (n < 6 at 95 %).
 */
export function medianInterval(values: readonly number[], confidence = 0.95): { low: number; high: number; coverage: number } | null {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  // P(B(n, ½) < k) for k = 0…: the chance the median is below the k-th smallest value.
  let below = 0;
  let best: { k: number; coverage: number } | null = null;
  for (let k = 1, choose = 1; k <= Math.floor(n / 2); k += 1) {
    below += choose / 2 ** n;
    choose = (choose * (n - k + 1)) / k;
    const coverage = 1 - 2 * below;
    if (coverage < confidence) break;
    best = { k, coverage };
  }
  if (!best) return null;
  return { low: sorted[best.k - 1] as number, high: sorted[n - best.k] as number, coverage: round(best.coverage) };
}

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

  readonly edges = { start: [] as number[], end: [] as number[] };

  /**
   * Adds the ends of the story just measured (call after endStory): from `started` (the request
   * sent) to its search tool's entry, and from its polish tool's exit to `ended` (the client told).
   */
  addEdges(started: number, ended: number): void {
    const searchEntered = this.#enter.get('search');
    const polishLeft = this.#exit.get('polish');
    if (searchEntered === undefined || polishLeft === undefined) throw new Error('the story has no search entry or polish exit');
    this.edges.start.push(searchEntered - started);
    this.edges.end.push(ended - polishLeft);
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
 * Completed jobs are removed at once (STAGE_JOB_OPTIONS), so each job's times are taken from its
 * worker's `completed` event.
 */
export type StageQueueNames = Record<'search' | 'outline' | 'write' | 'polish', string>;

type JobTimes = { created: number; started: number; finished: number };

export class JobHopReader {
  readonly hops: number[] = [];
  readonly #times = new Map<string, JobTimes>();
  readonly #detach: (() => void)[] = [];

  constructor(options: { workers: readonly Worker[] }) {
    for (const worker of options.workers) {
      const listener = (job: Job) => {
        if (job.id && job.processedOn && job.finishedOn) this.#times.set(job.id, { created: job.timestamp, started: job.processedOn, finished: job.finishedOn });
      };
      worker.on('completed', listener);
      this.#detach.push(() => worker.off('completed', listener));
    }
  }

  async addStory(storyId: string): Promise<void> {
    const stages = ['search', 'outline', ...SECTION_ORDER.map((s) => `write.${s}`), 'polish'];
    // A story's end can be told before its last job's worker has seen the job complete.
    for (let waited = 0; stages.some((stage) => !this.#times.has(`${storyId}.${stage}`)); waited += 5) {
      if (waited > 5000) throw new Error(`jobs of ${storyId} have no timestamps: ${stages.filter((stage) => !this.#times.has(`${storyId}.${stage}`)).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const times = (stage: string) => {
      const found = this.#times.get(`${storyId}.${stage}`) as JobTimes;
      this.#times.delete(`${storyId}.${stage}`);
      return found;
    };
    const search = times('search');
    const outline = times('outline');
    const writers = SECTION_ORDER.map((s) => times(`write.${s}`));
    const polish = times('polish');
    this.hops.push(outline.started - search.finished, ...writers.map((w) => w.started - w.created), polish.started - Math.max(...writers.map((w) => w.finished)));
  }

  summary(): Summary {
    return summarize(this.hops);
  }

  close(): Promise<void> {
    for (const detach of this.#detach) detach();
    return Promise.resolve();
  }
}

/** Resolves when `events` says job `jobId` completed. */
export function completionOf(events: QueueEvents, jobId: string): Promise<void> {
  return new Promise((resolve) => {
    const onCompleted = ({ jobId: id }: { jobId: string }) => {
      if (id !== jobId) return;
      events.off('completed', onCompleted);
      resolve();
    };
    events.on('completed', onCompleted);
  });
}
