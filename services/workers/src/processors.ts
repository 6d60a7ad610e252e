/**
 * The processor of each stage queue. Each parses its payload with the job catalog, reads what
 * earlier stages stored in the run, calls its tool through StoryTools and returns the output.
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
  return async (job: Job): Promise<SearchOutput> => {
    const data = await parsePayload(deps, job, SearchJob);
    const { topic, depth } = data.request;
    return runStage(deps, job, {
      runId: data.run_id,
      name: 'search',
      work: ({ signal }) => withRemoteTask(job, data.remote_task, (hooks) => deps.tools.search({ topic, ...(depth ? { depth } : {}) }, { signal, ...hooks })),
    });
  };
}

export function outlineProcessor(deps: ProcessorDeps) {
  return async (job: Job): Promise<OutlineOutput> => {
    const data = await parsePayload(deps, job, OutlineJob);
    const { topic, structure } = data.request;
    const outline = await runStage(deps, job, {
      runId: data.run_id,
      name: 'outline',
      work: async ({ signal }) => {
        const research = await requireOutput<SearchOutput>(deps, data.run_id, 'search');
        const items = research.results.slice(0, 50).map((r) => ({ title: r.title.slice(0, 300) || topic.slice(0, 300), content: r.snippet.slice(0, 5000) }));
        return withRemoteTask(job, data.remote_task, (hooks) => deps.tools.outline({ topic, research: items, ...(structure ? { structure } : {}) }, { signal, ...hooks }));
      },
    });
    // Also when the outline was stored before a crash: adding the flow again adds nothing twice.
    await deps.flows.add(storySectionsFlow(data.run_id, data.request, outline));
    return outline;
  };
}

export function writeProcessor(deps: ProcessorDeps) {
  return async (job: Job): Promise<StageResults['write']> => {
    const data = await parsePayload(deps, job, WriteJob);
    const stage = writeStage(data.section);
    return runStage(deps, job, {
      runId: data.run_id,
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
  return async (job: Job): Promise<PolishOutput> => {
    const data = await parsePayload(deps, job, PolishJob);
    const { focus_areas, target_audience } = data.request;
    const polished = await runStage(deps, job, {
      runId: data.run_id,
      name: 'polish',
      work: async ({ signal }) => {
        const sections = await Promise.all(SECTION_ORDER.map((s) => requireOutput<StageResults['write']>(deps, data.run_id, writeStage(s))));
        const draft = sections.map((s) => s.content.trim()).join('\n\n');
        return withRemoteTask(job, data.remote_task, (hooks) =>
          deps.tools.polish({ draft, ...(focus_areas ? { focus_areas } : {}), ...(target_audience ? { target_audience } : {}) }, { signal, ...hooks }),
        );
      },
    });
    const result = await assembleResult(deps, data.run_id, polished);
    await deps.store.transition({ runId: data.run_id, from: ['running', 'queued'], to: 'completed', result });
    return polished;
  };
}

async function requireOutput<T>(deps: StageDeps, runId: string, stage: string): Promise<T> {
  const output = await deps.store.getOutput<T>(runId, stage);
  if (output === null) throw new UnrecoverableError(`stage ${stage} of run ${runId} has no output`);
  return output;
}

async function assembleResult(deps: StageDeps, runId: string, polished: PolishOutput): Promise<StoryResult> {
  const research = await requireOutput<SearchOutput>(deps, runId, 'search');
  const outline = await requireOutput<OutlineOutput>(deps, runId, 'outline');
  const sections = await Promise.all(SECTION_ORDER.map((s) => requireOutput<StageResults['write']>(deps, runId, writeStage(s))));
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
