/**
 * The job catalog: every job the pipelines enqueue, with its queue, payload schema and retry
 * options. The orchestrator builds jobs from it and the workers parse every payload with it.
 */
import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { AceflowRunRequest, AceflowStageId, SectionName, SectionOutline, StoryRequest, type SearchOutput, type OutlineOutput, type WriteSectionOutput, type PolishOutput } from '@switchyard/contracts';

/**
 * Length of BullMQ's own event stream per queue (its default is 10,000). Nothing here reads those
 * streams (runs have their own events); a thousand is enough to look into a queue by hand.
 */
export const BULLMQ_EVENTS_MAXLEN = 1000;

/** One queue per stage, so each scales and is rate-limited on its own. */
export const QUEUES = {
  search: 'story-search',
  outline: 'story-outline',
  write: 'story-write',
  polish: 'story-polish',
  dispatch: 'run-dispatch',
  aceflow: 'aceflow-stage',
} as const;
export type QueueKey = keyof typeof QUEUES;
export const STAGE_QUEUE_KEYS = ['search', 'outline', 'write', 'polish'] as const satisfies readonly QueueKey[];
export type StageQueueKey = (typeof STAGE_QUEUE_KEYS)[number];

/** The seven stages of a story run, in the order a reader expects them. */
export const STORY_STAGES = ['search', 'outline', ...SectionName.options.map((s) => `write.${s}`), 'polish'] as const;
export const writeStage = (section: SectionName) => `write.${section}`;

/** Where an async tool call was accepted, so a replacement worker polls it instead of starting over. */
export const RemoteTaskRef = z.object({ task_id: z.string().min(1), poll_url: z.string().min(1) });
export type RemoteTaskRef = z.infer<typeof RemoteTaskRef>;

// The batch id rides along so a stage can keep its batch's counts without looking it up.
const RunRef = { run_id: z.string().min(1), batch_id: z.string().min(1).optional(), remote_task: RemoteTaskRef.optional() };

export const SearchJob = z.object({ ...RunRef, request: StoryRequest });
export const OutlineJob = z.object({ ...RunRef, request: StoryRequest });
export const WriteJob = z.object({
  ...RunRef,
  section: SectionName,
  outline: SectionOutline,
  story_title: z.string(),
  characters: z.array(z.string()),
  style: z.string().optional(),
});
export const PolishJob = z.object({ ...RunRef, request: StoryRequest });
export const DispatchJob = z.object({ batch_id: z.string().min(1) });
export const AceflowStageJob = z.object({
  ...RunRef,
  project: AceflowRunRequest.shape.project,
  stage: AceflowStageId,
  /** The run's last stage, which ends the run. */
  final: z.boolean().default(false),
  /** The first stage carries the run's analysis and sets it before anything else. */
  analysis: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

export type SearchJob = z.infer<typeof SearchJob>;
export type OutlineJob = z.infer<typeof OutlineJob>;
export type WriteJob = z.infer<typeof WriteJob>;
export type PolishJob = z.infer<typeof PolishJob>;
export type DispatchJob = z.infer<typeof DispatchJob>;
export type AceflowStageJob = z.infer<typeof AceflowStageJob>;

/** What each story stage stores in its run as its output (the jobs return nothing). */
export interface StageResults {
  search: SearchOutput;
  outline: OutlineOutput;
  write: WriteSectionOutput & { section: SectionName };
  polish: PolishOutput;
}

/**
 * Retry options of stage jobs. The tool client already retries a call a few times; these attempts
 * cover what it cannot: a worker that crashed, a service down for longer than its retries.
 * `attempts` is a ceiling: the worker's own budget (STAGE_MAX_ATTEMPTS) ends a stage within it,
 * so the budget can change without re-enqueueing jobs. A stage that meets an open breaker is
 * delayed, not failed, and spends no attempt.
 */
export const MAX_STAGE_ATTEMPTS = 10;
export const STAGE_JOB_OPTIONS = {
  attempts: MAX_STAGE_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1000 },
  // The run store keeps the truth about runs; finished jobs need not stay in Redis long.
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
} as const satisfies JobsOptions;

export const JOB_CATALOG = {
  'story.search': { queue: QUEUES.search, payload: SearchJob, options: STAGE_JOB_OPTIONS },
  'story.outline': { queue: QUEUES.outline, payload: OutlineJob, options: STAGE_JOB_OPTIONS },
  'story.write': { queue: QUEUES.write, payload: WriteJob, options: STAGE_JOB_OPTIONS },
  'story.polish': { queue: QUEUES.polish, payload: PolishJob, options: STAGE_JOB_OPTIONS },
  // Each stage's writer is retried inside the job (validation loop); the job itself as a story stage.
  'aceflow.stage': { queue: QUEUES.aceflow, payload: AceflowStageJob, options: STAGE_JOB_OPTIONS },
  'runs.dispatch': { queue: QUEUES.dispatch, payload: DispatchJob, options: { attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: true, removeOnFail: { age: 24 * 3600 } } },
} as const satisfies Record<string, { queue: string; payload: z.ZodType; options: JobsOptions }>;
export type JobName = keyof typeof JOB_CATALOG;

/** BullMQ refuses ':' in custom job ids, and ids must be stable so that adding twice adds once. */
export const jobId = (runId: string, stage: string) => `${runId}.${stage}`;

/** The queue that runs stage `stage` of a run of `kind`, so that a run's jobs can be found. */
export function stageQueue(kind: string, stage: string): string {
  if (kind === 'aceflow') return QUEUES.aceflow;
  if (stage.startsWith('write.')) return QUEUES.write;
  const queue = (QUEUES as Record<string, string>)[stage];
  if (!queue) throw new Error(`no queue runs stage ${stage} of a ${kind} run`);
  return queue;
}

/** The id of the job that expands batch `batchId` into runs. */
export const dispatchJobId = (batchId: string) => `dispatch.${batchId}`;
