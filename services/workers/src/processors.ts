/**
 * The processor of each stage queue. Each parses its payload with the job catalog, reads what
 * earlier stages stored in the run, calls its tool through StoryTools and stores the output in
 * the run. The job itself returns nothing: BullMQ would otherwise keep each text twice more, in
 * the job and in its parent, and write it to the AOF each time.
 */
import { UnrecoverableError, type FlowProducer, type Job } from 'bullmq';
import { SECTION_ORDER, type OutlineOutput, type SearchOutput, type StoryResult, type WriteSectionOutput, type PolishOutput } from '@switchyard/contracts';
import { OutlineJob, PolishJob, SearchJob, WriteJob, storySectionsFlow, writeStage, type RemoteTaskRef, type StageResults } from '@switchyard/pipeline';
import { ToolTaskLostError } from '@switchyard/tool-client';
import type { z } from 'zod';
import { runStage, toRunError, type StageDeps } from './stage-runner.js';
import type { StageCall, StoryTools } from './story-tools.js';

export interface ProcessorDeps extends StageDeps {
  tools: StoryTools;
  flows: FlowProducer;
}

/** Parses a payload; a malformed one fails its run at once, since retrying cannot mend it. */
async function parsePayload<S extends z.ZodType>(deps: StageDeps, job: Job, schema: S): Promise<z.output<S>> {
  const parsed = schema.safeParse(job.data);
  if (parsed.success) return parsed.data;
  const runId = typeof (job.data as { run_id?: unknown })?.run_id === 'string' ? (job.data as { run_id: string }).run_id : undefined;
  const error = toRunError(parsed.error, job.name);
  if (runId) await deps.store.transition({ runId, from: ['queued', 'running'], to: 'failed', error });
  throw new UnrecoverableError(error.message);
}

/**
 * Async-call hooks: the accepted task is written to the job, so that a worker replacing a crashed
 * one polls that same task; a task the service no longer knows is dropped so the retry starts anew.
 */
function remoteTaskHooks(job: Job, remote: RemoteTaskRef | undefined): Pick<StageCall, 'resumeTask' | 'onTaskAccepted'> & { forget(error: unknown): Promise<void> } {
  return {
    resumeTask: remote ? { taskId: remote.task_id, pollUrl: remote.poll_url } : undefined,
    onTaskAccepted: (task) => job.updateData({ ...(job.data as object), remote_task: { task_id: task.taskId, poll_url: task.pollUrl } }),
    forget: async (error) => {
      if (!(error instanceof ToolTaskLostError)) return;
      const { remote_task: _dropped, ...rest } = job.data as { remote_task?: unknown };
      await job.updateData(rest);
    },
  };
}

async function withRemoteTask<T>(job: Job, remote: RemoteTaskRef | undefined, call: (hooks: Pick<StageCall, 'resumeTask' | 'onTaskAccepted'>) => Promise<T>): Promise<T> {
  const hooks = remoteTaskHooks(job, remote);
  try {
    return await call(hooks);
  } catch (error) {
    await hooks.forget(error);
    throw error;
  }
}

export function searchProcessor(deps: ProcessorDeps) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = await parsePayload(deps, job, SearchJob);
    const { topic, depth } = data.request;
    await runStage(deps, job, {
      runId: data.run_id,
      batchId: data.batch_id,
      token,
      name: 'search',
      work: ({ signal }) => withRemoteTask(job, data.remote_task, (hooks) => deps.tools.search({ topic, ...(depth ? { depth } : {}) }, { signal, ...hooks })),
    });
  };
}

export function outlineProcessor(deps: ProcessorDeps) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = await parsePayload(deps, job, OutlineJob);
    const { topic, structure } = data.request;
    const { output: outline } = await runStage(deps, job, {
      runId: data.run_id,
      batchId: data.batch_id,
      token,
      name: 'outline',
      inputs: ['search'],
      work: async ({ signal, inputs }) => {
        const research = requireInput<SearchOutput>(inputs, 'search', data.run_id);
        const items = research.results.slice(0, 50).map((r) => ({ title: r.title.slice(0, 300) || topic.slice(0, 300), content: r.snippet.slice(0, 5000) }));
        return withRemoteTask(job, data.remote_task, (hooks) => deps.tools.outline({ topic, research: items, ...(structure ? { structure } : {}) }, { signal, ...hooks }));
      },
    });
    // Also when the outline was stored before a crash: adding the flow again adds nothing twice.
    await deps.flows.add(storySectionsFlow(data.run_id, data.request, outline, data.batch_id));
  };
}

export function writeProcessor(deps: ProcessorDeps) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = await parsePayload(deps, job, WriteJob);
    const stage = writeStage(data.section);
    await runStage(deps, job, {
      runId: data.run_id,
      batchId: data.batch_id,
      token,
      name: stage,
      work: async ({ signal, attempt }) => {
        const pending: Promise<unknown>[] = [];
        const emitReset = () => pending.push(deps.store.appendEvent(data.run_id, 'reset', { stage, section: data.section }));
        // A previous attempt may have streamed part of this section before it broke.
        if (attempt > 1) emitReset();
        const output: WriteSectionOutput = await withRemoteTask(job, data.remote_task, (hooks) =>
          deps.tools.writeSection(
            { section_name: data.section, outline: data.outline, story_title: data.story_title, characters: data.characters, ...(data.style ? { style: data.style } : {}) },
            {
              signal,
              ...hooks,
              onChunk: (chunk) => pending.push(deps.store.appendEvent(data.run_id, 'content', { stage, section: data.section, chunk })),
              onReset: emitReset,
            },
          ),
        );
        await Promise.all(pending);
        return { ...output, section: data.section };
      },
    });
  };
}

export function polishProcessor(deps: ProcessorDeps) {
  return async (job: Job, token?: string): Promise<void> => {
    const data = await parsePayload(deps, job, PolishJob);
    const { focus_areas, target_audience } = data.request;
    const { output: polished, inputs } = await runStage(deps, job, {
      runId: data.run_id,
      batchId: data.batch_id,
      token,
      name: 'polish',
      // The writers' outputs feed the polish; research and outline go into the result.
      inputs: ['search', 'outline', ...SECTION_ORDER.map(writeStage)],
      work: async ({ signal, inputs }) => {
        const sections = SECTION_ORDER.map((s) => requireInput<StageResults['write']>(inputs, writeStage(s), data.run_id));
        const draft = sections.map((s) => s.content.trim()).join('\n\n');
        return withRemoteTask(job, data.remote_task, (hooks) =>
          deps.tools.polish({ draft, ...(focus_areas ? { focus_areas } : {}), ...(target_audience ? { target_audience } : {}) }, { signal, ...hooks }),
        );
      },
    });
    const result = assembleResult(data.run_id, polished, inputs);
    await deps.store.transition({ runId: data.run_id, from: ['running', 'queued'], to: 'completed', result, batchId: data.batch_id ?? null });
  };
}

function requireInput<T>(inputs: Record<string, unknown>, stage: string, runId: string): T {
  const output = inputs[stage];
  if (output === null || output === undefined) throw new UnrecoverableError(`stage ${stage} of run ${runId} has no output`);
  return output as T;
}

function assembleResult(runId: string, polished: PolishOutput, inputs: Record<string, unknown>): StoryResult {
  const research = requireInput<SearchOutput>(inputs, 'search', runId);
  const outline = requireInput<OutlineOutput>(inputs, 'outline', runId);
  const sections = SECTION_ORDER.map((s) => requireInput<StageResults['write']>(inputs, writeStage(s), runId));
  return {
    title: outline.title,
    content: polished.polished_content,
    word_count: polished.word_count,
    sections: sections.map((s) => ({ name: s.section, title: outline.sections[s.section].title, content: s.content, word_count: s.word_count })),
    improvements: polished.improvements,
    research: research.results,
    outline,
  };
}
