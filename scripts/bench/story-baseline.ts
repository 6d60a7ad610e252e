/**
 * The baseline: plain BullMQ written by hand, with a story run's seven-job shape (outline←search,
 * then polish←four writers, the second flow added by the outline job), the same queue names, job
 * options, job ids and worker settings as Switchyard, and processors that return the instant
 * tools' outputs. Data flows as the story's does: the outline and the polish read their children's
 * outputs (BullMQ's `getChildrenValues`, one round trip each: the outline is made from the search's
 * results, the polish from the four sections), and the writers get the outline in their jobs. The gap between the two is what Switchyard adds: HTTP, the run store,
 * stage records and events, cancellation tracking. `guarantees` adds some of that by hand, the
 * least a hand-written flow would do for each (scripts/bench/story-guarantees.ts).
 */
import { FlowProducer, Worker, type FlowJob, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { SECTION_ORDER } from '@switchyard/contracts';
import { STAGE_JOB_OPTIONS } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { OUTLINE_OUTPUT, POLISH_OUTPUT, SEARCH_OUTPUT, SECTION_OUTPUT, type ToolProbe, type ToolStage } from './instant-tools.js';
import { deletePrefix, type StageQueueNames } from './story-stats.js';

/** The hand-written pipeline's own queues, one per stage. */
export const BASELINE_QUEUES: StageQueueNames = { search: 'story-search', outline: 'story-outline', write: 'story-write', polish: 'story-polish' };

export interface BaselineUnderTest {
  /** Adds `count` stories' first flows (250 per transaction, as the batch dispatcher does) and waits for every polish job. */
  runBatch(count: number): Promise<void>;
  /** Adds one story and waits for its polish job. */
  runStory(storyId: string): Promise<void>;
  /** Adds one story's first flow (with its guarantees' start), not waiting for it to end. */
  addStory(storyId: string): Promise<void>;
  /** Resolves when the next story's polish job completes (register it before adding the story). */
  nextStoryEnd(): Promise<void>;
  /** Its BullMQ workers, e.g. to read job timestamps as jobs complete. */
  workers: readonly Worker[];
  close(): Promise<void>;
}

/** What a hand-written flow may do besides its jobs, each awaited where the flow is at that point. */
export interface BaselineGuarantees {
  /** Before a chunk of stories' first flows is added (`batch` null for a story alone, else with its whole count). */
  added(storyIds: readonly string[], batch: { id: string; total: number } | null): Promise<void>;
  /** After a stage's tool answered, before its job completes. */
  stage(storyId: string, stage: string, output: unknown): Promise<void>;
  /** After the polish stage's own record: the story's end, with its result. */
  ended(storyId: string, batch: string | null, result: unknown): Promise<void>;
  /**
   * Once a batch's stories have all ended, inside its measurement: what is done after a run's end
   * (its archive), as Switchyard's compaction pass is after a batch's `done`.
   */
  settle?(): Promise<void>;
}

const CHUNK = 250;
const STALL_MS = 60_000;
/** Options every job gets besides its id: a priority, when the flow uses BullMQ's priorities. */
type Extra = { priority?: number };
const child = (id: string, extra: Extra) => ({ ...STAGE_JOB_OPTIONS, ...extra, jobId: id, failParentOnFailure: true });

function startFlow(storyId: string, batch: string | null, extra: Extra): FlowJob {
  const request = { topic: `baseline story ${storyId}` };
  return {
    name: 'story.outline',
    queueName: BASELINE_QUEUES.outline,
    data: { run_id: storyId, batch_id: batch, request },
    opts: { ...STAGE_JOB_OPTIONS, ...extra, jobId: `${storyId}.outline` },
    children: [{ name: 'story.search', queueName: BASELINE_QUEUES.search, data: { run_id: storyId, request }, opts: child(`${storyId}.search`, extra) }],
  };
}

function sectionsFlow(storyId: string, batch: string | null, request: unknown, extra: Extra): FlowJob {
  return {
    name: 'story.polish',
    queueName: BASELINE_QUEUES.polish,
    data: { run_id: storyId, batch_id: batch, request },
    opts: { ...STAGE_JOB_OPTIONS, ...extra, jobId: `${storyId}.polish` },
    children: SECTION_ORDER.map((section) => ({
      name: 'story.write',
      queueName: BASELINE_QUEUES.write,
      data: { run_id: storyId, section, outline: OUTLINE_OUTPUT.sections[section], story_title: OUTLINE_OUTPUT.title, characters: OUTLINE_OUTPUT.sections.introduction.characters },
      opts: child(`${storyId}.write.${section}`, extra),
    })),
  };
}

/** A worker limiter no flow reaches: BullMQ's rate limit of a queue (what `worker.rateLimit()` sets) holds only on a worker with one. */
const UNREACHED_LIMIT = { max: 1_000_000_000, duration: 1000 };

/**
 * @param options.flowControl use BullMQ's flow control as the engine does: every job with a
 *   priority (the engine's fair shares are priorities) and every worker with a limiter (default false)
 * @param options.guarantees what the flow does besides its jobs (BaselineGuarantees)
 */
export async function startBaseline(options: { redisUrl: string; prefix: string; concurrency: number; probe?: ToolProbe; flowControl?: boolean; guarantees?: (connection: Redis) => BaselineGuarantees }): Promise<BaselineUnderTest> {
  const extra: Extra = options.flowControl ? { priority: 1 } : {};
  const connection = createRedisClient(options.redisUrl);
  const flows = new FlowProducer({ connection, prefix: options.prefix });
  const tool = <T>(stage: ToolStage, output: T): T => {
    options.probe?.enter(stage);
    options.probe?.exit(stage);
    return output;
  };
  const guarantees = options.guarantees?.(connection);
  /** The stage's output, once its record (if any) is written. */
  const recorded = async <T>(job: Job<Data>, stage: string, output: T): Promise<T> => {
    await guarantees?.stage(job.data.run_id, stage, output);
    return output;
  };
  type Data = { run_id: string; batch_id?: string | null; request?: unknown; section?: string };
  /** A flow parent's inputs: its children's outputs, all `count` of them. */
  const inputsOf = async (job: Job<Data>, count: number): Promise<unknown[]> => {
    const outputs = Object.values(await job.getChildrenValues());
    if (outputs.length !== count) throw new Error(`${job.id} found ${outputs.length} of its ${count} inputs`);
    return outputs;
  };
  const processors = {
    [BASELINE_QUEUES.search]: async (job: Job<Data>) => recorded(job, 'search', tool('search', SEARCH_OUTPUT)),
    [BASELINE_QUEUES.outline]: async (job: Job<Data>) => {
      await inputsOf(job, 1);
      const outline = await recorded(job, 'outline', tool('outline', OUTLINE_OUTPUT));
      await flows.add(sectionsFlow(job.data.run_id, job.data.batch_id ?? null, job.data.request, extra));
      return outline;
    },
    [BASELINE_QUEUES.write]: async (job: Job<Data>) => recorded(job, `write.${job.data.section}`, { ...tool(`write.${job.data.section}` as ToolStage, SECTION_OUTPUT), section: job.data.section }),
    [BASELINE_QUEUES.polish]: async (job: Job<Data>) => {
      await inputsOf(job, SECTION_ORDER.length);
      const polished = await recorded(job, 'polish', tool('polish', POLISH_OUTPUT));
      await guarantees?.ended(job.data.run_id, job.data.batch_id ?? null, polished);
      return polished;
    },
  };
  const workers = Object.entries(processors).map(
    ([queue, processor]) =>
      new Worker(queue, processor, { connection, prefix: options.prefix, concurrency: options.concurrency, lockDuration: 30_000, stalledInterval: 15_000, maxStalledCount: 2, ...(options.flowControl ? { limiter: UNREACHED_LIMIT } : {}) }),
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const polishWorker = workers.find((w) => w.name === BASELINE_QUEUES.polish) as Worker;
  const failures: string[] = [];
  for (const worker of workers) worker.on('failed', (job, err) => failures.push(`${job?.id}: ${err.message}`));

  /** Resolves when `done(id)` has held for `count` completed polish jobs; fails after a minute without one. */
  const completions = (count: number, done: (jobId: string) => boolean) =>
    new Promise<void>((resolve, reject) => {
      let seen = 0;
      const stalled = () => finish(new Error(`baseline: no story finished for a minute (${seen} of ${count})`));
      const timer = setTimeout(stalled, STALL_MS);
      const onCompleted = (job: Job) => {
        if (!done(job.id ?? '')) return;
        seen += 1;
        timer.refresh();
        if (seen >= count) finish();
      };
      const onFailed = () => finish(new Error(`baseline jobs failed: ${failures.slice(0, 3).join('; ')}`));
      const finish = (error?: Error) => {
        clearTimeout(timer);
        polishWorker.off('completed', onCompleted);
        for (const w of workers) w.off('failed', onFailed);
        if (error) reject(error);
        else resolve();
      };
      polishWorker.on('completed', onCompleted);
      for (const w of workers) w.on('failed', onFailed);
    });

  async function addStory(storyId: string): Promise<void> {
    await guarantees?.added([storyId], null);
    await flows.add(startFlow(storyId, null, extra));
  }

  let batches = 0;
  return {
    workers,
    async runBatch(count) {
      batches += 1;
      const batch = `batch${batches}`;
      const ids = Array.from({ length: count }, (_, i) => `${batch}-${i}`);
      const allDone = completions(count, (id) => id.startsWith(`${batch}-`));
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        await guarantees?.added(chunk, { id: batch, total: count });
        await flows.addBulk(chunk.map((id) => startFlow(id, batch, extra)));
      }
      await allDone;
      await guarantees?.settle?.();
    },
    async runStory(storyId) {
      const done = completions(1, (id) => id === `${storyId}.polish`);
      await addStory(storyId);
      await done;
    },
    addStory,
    nextStoryEnd: () => completions(1, (id) => id.endsWith('.polish')),
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await flows.close();
      await deletePrefix(connection, options.prefix);
      await connection.quit();
    },
  };
}
