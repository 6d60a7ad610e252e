/**
 * The story as Switchyard ran it before pipelines were data, kept here only to measure the engine
 * against it: two hand-built BullMQ flows (outline ← search, then polish ← four writers added by
 * the outline job), each stage starting and completing through the same run-store scripts the
 * engine uses, the polish assembling the result and ending the run. As it did, each job's payload
 * is parsed with a zod schema and each stage's calls get an abort signal tracked per run; what it
 * leaves out is the failure handling no bench story reaches (retries, breaker waits).
 */
import { FlowProducer, Worker, type FlowJob, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { SECTION_ORDER, SectionName } from '@switchyard/contracts';
import { BatchStore, readEvents, RunStore, STAGE_JOB_OPTIONS } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { OUTLINE_OUTPUT, POLISH_OUTPUT, SEARCH_OUTPUT, SECTION_OUTPUT } from './instant-tools.js';
import { deletePrefix, type StageQueueNames } from './story-stats.js';

export const HANDBUILT_QUEUES: StageQueueNames = { search: 'hb-search', outline: 'hb-outline', write: 'hb-write', polish: 'hb-polish' };
const STAGES = ['search', 'outline', ...SECTION_ORDER.map((s) => `write.${s}`), 'polish'];
const CHUNK = 250;

const Data = z.object({ run_id: z.string().min(1), batch_id: z.string().min(1), section: SectionName.optional() });
type Data = z.infer<typeof Data>;
const node = (queue: string, stage: string, data: Data, child: boolean) => ({ name: `story.${stage.split('.')[0]}`, queueName: queue, data: { ...data, ...(stage.startsWith('write.') ? { section: stage.slice(6) } : {}) }, opts: { ...STAGE_JOB_OPTIONS, jobId: `${data.run_id}.${stage}`, ...(child ? { failParentOnFailure: true } : {}) } });

const startFlow = (data: Data): FlowJob => ({ ...node(HANDBUILT_QUEUES.outline, 'outline', data, false), children: [node(HANDBUILT_QUEUES.search, 'search', data, true)] });
const sectionsFlow = (data: Data): FlowJob => ({ ...node(HANDBUILT_QUEUES.polish, 'polish', data, false), children: SECTION_ORDER.map((s) => node(HANDBUILT_QUEUES.write, `write.${s}`, data, true)) });

export async function startHandbuilt(options: { redisUrl: string; prefix: string; concurrency: number }): Promise<{ runBatch(count: number): Promise<Record<string, number>>; close(): Promise<void> }> {
  const connection: Redis = createRedisClient(options.redisUrl);
  const reader: Redis = createRedisClient(options.redisUrl);
  const store = new RunStore({ redis: connection, prefix: options.prefix });
  const batches = new BatchStore(store);
  const flows = new FlowProducer({ connection, prefix: options.prefix });

  const aborts = new Map<string, Set<AbortController>>();
  const stage = async (job: Job<Data>, name: string, inputs: string[], tool: () => unknown) => {
    const data = Data.parse(job.data);
    const start = await store.startStage({ runId: data.run_id, stage: name, batchId: data.batch_id, inputs });
    if (start.kind !== 'started') throw new Error(`stage ${name} of ${data.run_id}: ${start.kind}`);
    const controller = new AbortController();
    const tracked = aborts.get(data.run_id) ?? new Set<AbortController>();
    aborts.set(data.run_id, tracked.add(controller));
    try {
      const output = tool();
      await store.completeStage({ runId: data.run_id, stage: name, output }).sent;
      return start.inputs;
    } finally {
      tracked.delete(controller);
      if (tracked.size === 0) aborts.delete(data.run_id);
    }
  };
  const processors: Record<string, (job: Job<Data>) => Promise<void>> = {
    [HANDBUILT_QUEUES.search]: async (job) => void (await stage(job, 'search', [], () => SEARCH_OUTPUT)),
    [HANDBUILT_QUEUES.outline]: async (job) => {
      await stage(job, 'outline', ['search'], () => OUTLINE_OUTPUT);
      await flows.add(sectionsFlow(job.data));
    },
    [HANDBUILT_QUEUES.write]: async (job) => void (await stage(job, `write.${job.data.section ?? ''}`, [], () => SECTION_OUTPUT)),
    [HANDBUILT_QUEUES.polish]: async (job) => {
      const inputs = await stage(job, 'polish', STAGES.filter((s) => s !== 'polish'), () => POLISH_OUTPUT);
      const result = { title: OUTLINE_OUTPUT.title, content: POLISH_OUTPUT.polished_content, word_count: POLISH_OUTPUT.word_count, sections: SECTION_ORDER.map((s) => ({ name: s, ...(inputs[`write.${s}`] as object) })), improvements: POLISH_OUTPUT.improvements, research: SEARCH_OUTPUT.results, outline: inputs.outline };
      await store.transition({ runId: job.data.run_id, from: ['running', 'queued'], to: 'completed', result, batchId: job.data.batch_id });
    },
  };
  const workers = Object.entries(processors).map(([queue, processor]) => new Worker(queue, processor, { connection, prefix: options.prefix, concurrency: options.concurrency }));
  await Promise.all(workers.map((w) => w.waitUntilReady()));

  return {
    async runBatch(count) {
      const { batchId, runIds } = await batches.createBatch({ runs: Array.from({ length: count }, (_, i) => ({ kind: 'story', request: { topic: `hand-built story ${i}` }, stages: STAGES })) });
      for (let i = 0; i < runIds.length; i += CHUNK) await flows.addBulk(runIds.slice(i, i + CHUNK).map((runId) => startFlow({ run_id: runId, batch_id: batchId })));
      for (let after = '0'; ; ) {
        const events = await readEvents({ redis: reader, key: store.keys.batchEvents(batchId), after, blockMs: 10_000, count: 1000 });
        const done = events.find((e) => e.type === 'done');
        if (done) return (JSON.parse(done.data) as { counts: Record<string, number> }).counts;
        if (events.length === 0) throw new Error('hand-built: no batch event for 10 s');
        after = events.at(-1)?.id ?? after;
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await flows.close();
      await deletePrefix(connection, options.prefix);
      await Promise.all([connection.quit(), reader.quit()]);
    },
  };
}
