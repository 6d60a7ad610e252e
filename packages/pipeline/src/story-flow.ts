/**
 * How a story run becomes BullMQ jobs. A flow's parent waits for all its children, but a job has
 * one parent, so the diamond search → outline → four sections → polish is two flows: the
 * orchestrator adds outline←search, and the outline job, once done, adds polish←four writers.
 * Job ids are derived from the run, so adding a flow twice (a retried outline, a re-run
 * dispatcher) adds it once. A child that fails fails its parent: nothing waits forever.
 */
import type { FlowJobNode, FlowJob, FlowProducer, JobsOptions } from 'bullmq';
import { SECTION_ORDER, type OutlineOutput, type StoryRequest } from '@switchyard/contracts';
import { JOB_CATALOG, jobId, writeStage, type OutlineJob, type PolishJob, type SearchJob, type WriteJob } from './catalog.js';

const childOptions = (options: JobsOptions, id: string): JobsOptions => ({ ...options, jobId: id, failParentOnFailure: true });

/** The first flow of a story run: outline waiting on search. */
export function storyStartFlow(runId: string, request: StoryRequest, batchId?: string): FlowJob {
  const batch = batchId ? { batch_id: batchId } : {};
  const search: FlowJobNode = {
    name: 'story.search',
    queueName: JOB_CATALOG['story.search'].queue,
    data: { run_id: runId, ...batch, request } satisfies SearchJob,
    opts: childOptions(JOB_CATALOG['story.search'].options, jobId(runId, 'search')),
  };
  return {
    name: 'story.outline',
    queueName: JOB_CATALOG['story.outline'].queue,
    data: { run_id: runId, ...batch, request } satisfies OutlineJob,
    opts: { ...JOB_CATALOG['story.outline'].options, jobId: jobId(runId, 'outline') },
    children: [search],
  };
}

/** The second flow: polish waiting on the four section writers, each fed its part of the outline. */
export function storySectionsFlow(runId: string, request: StoryRequest, outline: OutlineOutput, batchId?: string): FlowJob {
  const batch = batchId ? { batch_id: batchId } : {};
  const characters = outline.sections.introduction.characters;
  const writers: FlowJobNode[] = SECTION_ORDER.map((section) => ({
    name: 'story.write',
    queueName: JOB_CATALOG['story.write'].queue,
    data: {
      run_id: runId,
      ...batch,
      section,
      outline: outline.sections[section] as WriteJob['outline'],
      story_title: outline.title,
      characters,
      ...(request.style ? { style: request.style } : {}),
    } satisfies WriteJob,
    opts: childOptions(JOB_CATALOG['story.write'].options, jobId(runId, writeStage(section))),
  }));
  return {
    name: 'story.polish',
    queueName: JOB_CATALOG['story.polish'].queue,
    data: { run_id: runId, ...batch, request } satisfies PolishJob,
    opts: { ...JOB_CATALOG['story.polish'].options, jobId: jobId(runId, 'polish') },
    children: writers,
  };
}

export async function enqueueStory(flows: FlowProducer, runId: string, request: StoryRequest): Promise<void> {
  await flows.add(storyStartFlow(runId, request));
}

/** Many runs' first flows in one transaction. */
export async function enqueueStories(flows: FlowProducer, runs: readonly { runId: string; request: StoryRequest; batchId?: string }[]): Promise<void> {
  if (runs.length > 0) await flows.addBulk(runs.map((run) => storyStartFlow(run.runId, run.request, run.batchId)));
}
