/**
 * The story as Switchyard ran it before pipelines were data, kept here only to measure the engine
 * against it: two hand-built BullMQ flows (outline ← search, then polish ← four writers added by
 * the outline job), each stage starting and completing through the same run-store scripts the
 * engine uses, the polish assembling the result and ending the run. As it did, each job carries
 * what its stage needs (the request; a writer its part of the outline) and is parsed with the
 * catalog's schemas of the time, the outline's research and the polish's draft are cut and joined
 * in code, and each stage runs in the stage runner the processors ran their stages in (runStage,
 * with a RunAborts signal per run), calling the same instant tools as the engine.
 */
import { FlowProducer, Worker, type FlowJob, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { SECTION_ORDER, SectionName, SectionOutline, StoryRequest, type OutlineOutput, type PolishOutput, type SearchOutput, type WriteSectionOutput } from '@switchyard/contracts';
import { BatchStore, readEvents, RunStore, STAGE_JOB_OPTIONS } from '@switchyard/pipeline';
import { createLogger } from '@switchyard/logger';
import { createRedisClient } from '@switchyard/redis';
import { RunAborts, RunCompactor, runStage } from '@switchyard/workers';
import { MANUAL_COMPACTION_MS } from './story-switchyard.js';
import { createInstantTools } from './instant-tools.js';
import { deletePrefix, type StageQueueNames } from './story-stats.js';

/** The queues of the job catalog before pipelines were data (its QUEUES), under the hand-built flow's own prefix. */
export const HANDBUILT_QUEUES: StageQueueNames = { search: 'story-search', outline: 'story-outline', write: 'story-write', polish: 'story-polish' };
const STAGES = ['search', 'outline', ...SECTION_ORDER.map((s) => `write.${s}`), 'polish'];
const CHUNK = 250;

// The payloads of the job catalog before pipelines were data.
const RunRef = { run_id: z.string().min(1), batch_id: z.string().min(1).optional() };
const RequestJob = z.object({ ...RunRef, request: StoryRequest });
const WriteJob = z.object({ ...RunRef, section: SectionName, outline: SectionOutline, story_title: z.string(), characters: z.array(z.string()), style: z.string().optional() });
type RequestJob = z.infer<typeof RequestJob>;
type WriteJob = z.infer<typeof WriteJob>;

const options = (stage: string, runId: string, child: boolean) => ({ ...STAGE_JOB_OPTIONS, jobId: `${runId}.${stage}`, ...(child ? { failParentOnFailure: true } : {}) });
const requestNode = (queue: string, stage: string, data: RequestJob, child: boolean) => ({ name: `story.${stage}`, queueName: queue, data, opts: options(stage, data.run_id, child) });

const startFlow = (data: RequestJob): FlowJob => ({ ...requestNode(HANDBUILT_QUEUES.outline, 'outline', data, false), children: [requestNode(HANDBUILT_QUEUES.search, 'search', data, true)] });
function sectionsFlow(data: RequestJob, outline: OutlineOutput): FlowJob {
  const writers = SECTION_ORDER.map((section) => {
    const job: WriteJob = { run_id: data.run_id, ...(data.batch_id ? { batch_id: data.batch_id } : {}), section, outline: outline.sections[section] as WriteJob['outline'], story_title: outline.title, characters: outline.sections.introduction.characters, ...(data.request.style ? { style: data.request.style } : {}) };
    return { name: 'story.write', queueName: HANDBUILT_QUEUES.write, data: job, opts: options(`write.${section}`, data.run_id, true) };
  });
  return { ...requestNode(HANDBUILT_QUEUES.polish, 'polish', data, false), children: writers };
}

export async function startHandbuilt(options: { redisUrl: string; prefix: string; concurrency: number }): Promise<{ runBatch(count: number): Promise<Record<string, number>>; close(): Promise<void> }> {
  const connection: Redis = createRedisClient(options.redisUrl);
  const reader: Redis = createRedisClient(options.redisUrl);
  const store = new RunStore({ redis: connection, prefix: options.prefix });
  const batches = new BatchStore(store);
  const flows = new FlowProducer({ connection, prefix: options.prefix });

  const tools = createInstantTools();
  // As the hand-built processors did: every stage in the stage runner, with per-run abort signals.
  const aborts = new RunAborts({ store, subscriber: createRedisClient(options.redisUrl) });
  await aborts.start();
  const logger = createLogger({ name: 'bench-handbuilt', level: 'silent' });
  // Its runs are kept as the engine's are: compacted once ended, in the same measurement.
  const compactor = new RunCompactor({ store, connection, logger, intervalMs: MANUAL_COMPACTION_MS, afterMs: 0 });
  const deps = { store, aborts, logger };
  const stage = async <T>(job: Job, token: string | undefined, data: { run_id: string; batch_id?: string | undefined }, spec: { name: string; inputs: string[]; work: (inputs: Record<string, unknown>, signal: AbortSignal) => Promise<T> }) => {
    const { output, inputs } = await runStage(deps, job, { runId: data.run_id, batchId: data.batch_id, token, name: spec.name, inputs: spec.inputs, work: ({ signal, inputs }) => spec.work(inputs, signal) });
    return { output: output as T, inputs };
  };
  const call = (service: string, tool: string, args: Record<string, unknown>, signal: AbortSignal) => tools.call({ service, tool, args, signal });
  const processors: Record<string, (job: Job, token?: string) => Promise<void>> = {
    [HANDBUILT_QUEUES.search]: async (job, token) => {
      const data = RequestJob.parse(job.data);
      await stage(job, token, data, { name: 'search', inputs: [], work: (_, signal) => call('search', 'search_relevant_information', { topic: data.request.topic, ...(data.request.depth ? { depth: data.request.depth } : {}) }, signal) });
    },
    [HANDBUILT_QUEUES.outline]: async (job, token) => {
      const data = RequestJob.parse(job.data);
      const { output } = await stage(job, token, data, { name: 'outline', inputs: ['search'], work: (inputs, signal) => {
        const research = (inputs.search as SearchOutput).results.slice(0, 50).map((r) => ({ title: r.title.slice(0, 300) || data.request.topic.slice(0, 300), content: r.snippet.slice(0, 5000) }));
        return call('outline', 'generate_structured_outline', { topic: data.request.topic, research, ...(data.request.structure ? { structure: data.request.structure } : {}) }, signal);
      } });
      await flows.add(sectionsFlow(data, output as OutlineOutput));
    },
    [HANDBUILT_QUEUES.write]: async (job, token) => {
      const data = WriteJob.parse(job.data);
      await stage(job, token, data, { name: `write.${data.section}`, inputs: [], work: async (_, signal) => {
        const output = (await call('writing', 'write_story_section', { section_name: data.section, outline: data.outline, story_title: data.story_title, characters: data.characters, ...(data.style ? { style: data.style } : {}) }, signal)) as WriteSectionOutput;
        return { ...output, section: data.section };
      } });
    },
    [HANDBUILT_QUEUES.polish]: async (job, token) => {
      const data = RequestJob.parse(job.data);
      const { output, inputs } = await stage(job, token, data, { name: 'polish', inputs: STAGES.filter((s) => s !== 'polish'), work: (inputs, signal) => {
        const draft = SECTION_ORDER.map((s) => (inputs[`write.${s}`] as WriteSectionOutput).content.trim()).join('\n\n');
        return call('editing', 'polish_story', { draft, ...(data.request.focus_areas ? { focus_areas: data.request.focus_areas } : {}), ...(data.request.target_audience ? { target_audience: data.request.target_audience } : {}) }, signal);
      } });
      const polished = output as PolishOutput;
      const outline = inputs.outline as OutlineOutput;
      const sections = SECTION_ORDER.map((s) => inputs[`write.${s}`] as WriteSectionOutput & { section: SectionName });
      const result = {
        title: outline.title,
        content: polished.polished_content,
        word_count: polished.word_count,
        sections: sections.map((s) => ({ name: s.section, title: outline.sections[s.section].title, content: s.content, word_count: s.word_count })),
        improvements: polished.improvements,
        research: (inputs.search as SearchOutput).results,
        outline,
      };
      await store.transition({ runId: data.run_id, from: ['running', 'queued'], to: 'completed', result, batchId: data.batch_id ?? null });
    },
  };
  const workers = Object.entries(processors).map(([queue, processor]) => new Worker(queue, processor, { connection, prefix: options.prefix, concurrency: options.concurrency }));
  await Promise.all(workers.map((w) => w.waitUntilReady()));

  return {
    async runBatch(count) {
      const requests: StoryRequest[] = Array.from({ length: count }, (_, i) => ({ topic: `hand-built story ${i}` }));
      const { batchId, runIds } = await batches.createBatch({ runs: requests.map((request) => ({ kind: 'story', request, stages: STAGES })) });
      for (let i = 0; i < runIds.length; i += CHUNK) await flows.addBulk(runIds.slice(i, i + CHUNK).map((runId, j) => startFlow({ run_id: runId, batch_id: batchId, request: requests[i + j] as StoryRequest })));
      for (let after = '0'; ; ) {
        const events = await readEvents({ redis: reader, key: store.keys.batchEvents(batchId), after, blockMs: 10_000, count: 1000 });
        const done = events.find((e) => e.type === 'done');
        if (done) {
          await compactor.pass();
          return (JSON.parse(done.data) as { counts: Record<string, number> }).counts;
        }
        if (events.length === 0) throw new Error('hand-built: no batch event for 10 s');
        after = events.at(-1)?.id ?? after;
      }
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await flows.close();
      await aborts.close();
      await deletePrefix(connection, options.prefix);
      await Promise.all([connection.quit(), reader.quit()]);
    },
  };
}
