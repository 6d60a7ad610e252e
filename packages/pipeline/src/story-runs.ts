/**
 * Starting, reading and cancelling story runs: the operations behind both the HTTP API and the
 * MCP bridge, so that the two cannot drift apart.
 */
import { z } from 'zod';
import { StoryRequest, TERMINAL_STATUSES, type BatchRequest, type RunStatus, type RunView } from '@switchyard/contracts';
import type { BatchStore } from './batch-store.js';
import { STORY_STAGES } from './catalog.js';
import type { PipelineQueues } from './queues.js';
import { newRunId, type RunRecord, type RunStore } from './run-store.js';
import { enqueueStory } from './story-flow.js';

export interface StoryRunsDeps {
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
}

export const runLinks = (runId: string) => ({ poll_url: `/v1/runs/${runId}`, events_url: `/v1/runs/${runId}/events` });
export const batchLinks = (batchId: string) => ({ poll_url: `/v1/batches/${batchId}`, events_url: `/v1/batches/${batchId}/events` });

/** Ids are generated here; anything else cannot name a run or batch. */
export const RUN_ID = /^run_[0-9a-f]{32}$/;
export const BATCH_ID = /^batch_[0-9a-f]{32}$/;

/** Records a queued story run and enqueues its first flow. */
export async function startStoryRun(deps: StoryRunsDeps, options: { request: StoryRequest; runId?: string }): Promise<string> {
  const runId = options.runId ?? newRunId();
  await deps.store.createRun({ id: runId, kind: 'story', request: options.request, stages: STORY_STAGES });
  await enqueueStory(deps.queues.flows, runId, options.request);
  return runId;
}

/** Each batch item over the defaults must be a whole story request; errors name `items.N.field`. */
export function batchStoryRequests(body: BatchRequest): StoryRequest[] {
  const issues: z.core.$ZodIssue[] = [];
  const requests = body.items.map((item, i) => {
    const parsed = StoryRequest.safeParse({ ...body.defaults, ...item });
    if (!parsed.success) issues.push(...parsed.error.issues.map((issue) => ({ ...issue, path: ['items', i, ...issue.path] })));
    return parsed.success ? parsed.data : undefined;
  });
  if (issues.length > 0) throw new z.ZodError(issues.slice(0, 50));
  return requests as StoryRequest[];
}

/** Records the batch and its runs, and hands the enqueueing to the dispatcher. */
export async function startStoryBatch(deps: StoryRunsDeps, options: { requests: readonly StoryRequest[]; batchId?: string }): Promise<{ batchId: string; runIds: string[] }> {
  const created = await deps.batches.createBatch({ id: options.batchId, runs: options.requests.map((request) => ({ kind: 'story', request, stages: STORY_STAGES })) });
  await deps.queues.dispatchBatch(created.batchId);
  return created;
}

export type CancelOutcome = { outcome: 'cancelled' | 'already_cancelled'; run: RunRecord } | { outcome: 'finished'; status: RunStatus } | { outcome: 'not_found' };

/** Cancels a queued or running run and tells every worker to abort its calls. */
export async function cancelRun(deps: Pick<StoryRunsDeps, 'store'>, runId: string): Promise<CancelOutcome> {
  if (!RUN_ID.test(runId)) return { outcome: 'not_found' };
  const change = await deps.store.transition({ runId, from: ['queued', 'running'], to: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled' } });
  if (change.previous === null) return { outcome: 'not_found' };
  if (!change.moved && change.previous !== 'cancelled') return { outcome: 'finished', status: change.previous };
  await deps.store.publishCancel(runId);
  const run = await deps.store.getRun(runId);
  return run ? { outcome: change.moved ? 'cancelled' : 'already_cancelled', run } : { outcome: 'not_found' };
}

export async function findRun(deps: Pick<StoryRunsDeps, 'store'>, runId: string): Promise<RunRecord | null> {
  return RUN_ID.test(runId) ? deps.store.getRun(runId) : null;
}

export function toRunView(run: RunRecord): RunView {
  const ended = TERMINAL_STATUSES.includes(run.status);
  return {
    run_id: run.id,
    kind: run.kind,
    status: run.status,
    progress: run.status === 'completed' ? 100 : Math.min(run.progress, 99),
    created_at: run.created_at,
    updated_at: run.updated_at,
    batch_id: run.batch_id,
    request: run.request,
    // Once a run has ended, a stage that never finished will not: show it as cancelled.
    stages: run.stages.map((s) => (ended && !['completed', 'failed', 'cancelled'].includes(s.status) ? { ...s, status: 'cancelled' } : s)),
    result: run.result,
    error: run.error,
    ...runLinks(run.id),
  };
}
