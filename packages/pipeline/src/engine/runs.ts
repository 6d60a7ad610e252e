/**
 * Cancelling runs, and the story and AceFlow aliases over the pipeline engine: the operations
 * behind both the HTTP API and the MCP bridge, so that the two cannot drift apart.
 */
import { z } from 'zod';
import { ACEFLOW_STAGE_IDS, LIVE_STATUSES, StoryRequest, type AceflowRunRequest, type AceflowStageId, type BatchRequest, type RunStatus } from '@switchyard/contracts';
import type { CompiledPipeline } from '../definition/compile.js';
import { startPipelineBatch, startPipelineRun, type PipelineRunsDeps, type StartedRun, type StartRunOptions } from './pipeline-runs.js';
import { registerShippedPipelines } from './shipped.js';
import type { RunRecord, RunStore } from '../store/run-store.js';
import { RUN_ID } from '../store/run-view.js';
import { cancelChildRuns, childRunsOf } from './child-links.js';
import type { CallerFlow } from '../flow/run-flow.js';
import { ConcurrencyGates } from '../flow/concurrency-gate.js';
import { crashPoint } from '../crash-points.js';

/** A pipeline the deployment needs and does not have (the shipped ones are registered at start-up). */
export class PipelineMissingError extends Error {
  override name = 'PipelineMissingError';
}

/**
 * The latest version of a registered pipeline, compiled. A shipped one not registered yet (a
 * process that has not finished starting, a Redis emptied since) is registered first.
 */
export async function requirePipeline(deps: Pick<PipelineRunsDeps, 'pipelines'>, name: string, version?: number): Promise<CompiledPipeline> {
  let pipeline = await deps.pipelines.compiled(name, version);
  if (!pipeline && !version) {
    await registerShippedPipelines(deps.pipelines);
    pipeline = await deps.pipelines.compiled(name);
  }
  if (!pipeline) throw new PipelineMissingError(`no pipeline ${name}${version ? ` version ${version}` : ''} is registered`);
  return pipeline;
}

/**
 * What a start of `name`'s latest version is given: the version this process last read as the
 * latest, checked in the round trip that admits the run (StartRunOptions.latest); else the
 * version `require` reads: before this process has read one, and with `readNow` (a repeated
 * request, which finishes its start on the version read now; a request whose fingerprint holds the
 * version; a version asked for by number).
 */
export async function latestStart(deps: Pick<PipelineRunsDeps, 'pipelines'>, name: string, options: { readNow?: boolean | undefined; require: () => Promise<CompiledPipeline> }): Promise<Pick<StartRunOptions, 'pipeline' | 'latest'>> {
  const known = options.readNow ? undefined : deps.pipelines.latestKnown(name);
  if (!known) return { pipeline: await options.require() };
  return { pipeline: known, latest: { ...deps.pipelines.latestField(name), reload: options.require } };
}

/** `POST /v1/stories`: a run of the latest `story` pipeline. */
export async function startStoryRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues' | 'pipelines'>, options: { request: StoryRequest; runId?: string; repeated?: boolean; owner?: string | undefined; onRecorded?: (runId: string) => Promise<void>; caller?: CallerFlow | undefined }): Promise<StartedRun> {
  return startPipelineRun(deps, { ...(await latestStart(deps, 'story', { readNow: options.repeated, require: () => requirePipeline(deps, 'story') })), input: options.request, runId: options.runId, repeated: options.repeated, owner: options.owner, caller: options.caller, ...(options.onRecorded ? { onRecorded: options.onRecorded } : {}) });
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

export async function startStoryBatch(deps: PipelineRunsDeps, options: { requests: readonly StoryRequest[]; batchId?: string; repeated?: boolean; owner?: string | undefined; onRecorded?: (batchId: string) => Promise<void>; caller?: CallerFlow | undefined }): Promise<{ batchId: string; runIds: string[] }> {
  return startPipelineBatch(deps, { pipeline: await requirePipeline(deps, 'story'), inputs: options.requests, batchId: options.batchId, repeated: options.repeated, owner: options.owner, caller: options.caller, ...(options.onRecorded ? { onRecorded: options.onRecorded } : {}) });
}

/** The modes' stages, as the AceFlow engine defines them (kept in step by a test). */
export const ACEFLOW_MODE_STAGES: Readonly<Record<AceflowRunRequest['project']['mode'], readonly AceflowStageId[]>> = {
  complete: ACEFLOW_STAGE_IDS,
  standard: ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report', 's6_codereview', 's8_summary_report'],
  minimal: ['s1_user_story', 's2_tasks_group', 's4_implementation', 's5_test_report'],
};

export class AceflowRangeError extends Error {
  override name = 'AceflowRangeError';
}

/** The stages a run covers: its mode's, from `from_stage` to `to_stage`. */
export function aceflowRunStages(request: AceflowRunRequest): AceflowStageId[] {
  const stages = ACEFLOW_MODE_STAGES[request.project.mode];
  const from = request.from_stage ? stages.indexOf(request.from_stage) : 0;
  const to = request.to_stage ? stages.indexOf(request.to_stage) : stages.length - 1;
  if (from < 0) throw new AceflowRangeError(`from_stage ${request.from_stage} is not a stage of mode ${request.project.mode}`);
  if (to < 0) throw new AceflowRangeError(`to_stage ${request.to_stage} is not a stage of mode ${request.project.mode}`);
  if (from > to) throw new AceflowRangeError(`from_stage ${request.from_stage} comes after to_stage ${request.to_stage}`);
  return stages.slice(from, to + 1);
}

/** `POST /v1/aceflow/runs`: a run of the latest `aceflow` pipeline over the stages the request picks. */
export async function startAceflowRun(deps: Pick<PipelineRunsDeps, 'store' | 'queues' | 'pipelines'>, options: { request: AceflowRunRequest; runId?: string; repeated?: boolean; owner?: string | undefined; caller?: CallerFlow | undefined }): Promise<StartedRun & { stages: AceflowStageId[] }> {
  const stages = aceflowRunStages(options.request);
  const { project, analysis } = options.request;
  const input = { project, stages, ...(analysis ? { analysis } : {}) };
  // Its own size bound: the analysis it carries may be 10 MB (seed 000).
  const started = await startPipelineRun(deps, { ...(await latestStart(deps, 'aceflow', { readNow: options.repeated, require: () => requirePipeline(deps, 'aceflow') })), input, runId: options.runId, repeated: options.repeated, owner: options.owner, inputLimit: 'aceflowInputBytes', caller: options.caller });
  return { ...started, stages };
}

export type CancelOutcome = { outcome: 'cancelled' | 'already_cancelled'; run: RunRecord } | { outcome: 'finished'; status: RunStatus } | { outcome: 'not_found' };

/**
 * Cancels a queued or running run and tells every worker to abort its calls; its child runs are
 * cancelled with it. Cancelling a cancelled run does all but the status change again (the process
 * that cancelled it may have died before the rest).
 * @param deps.releaseWaits called for the run and each child cancelled: what they waited for leaves the inbox, their waiting jobs wake (releaseWaits)
 */
export async function cancelRun(deps: { store: RunStore; releaseWaits?: (runId: string) => Promise<unknown> }, runId: string): Promise<CancelOutcome> {
  if (!RUN_ID.test(runId)) return { outcome: 'not_found' };
  const change = await deps.store.transition({ runId, from: LIVE_STATUSES, to: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled' } });
  if (change.previous === null) return { outcome: 'not_found' };
  if (!change.moved && change.previous !== 'cancelled') return { outcome: 'finished', status: change.previous };
  crashPoint('run.cancelled');
  await deps.store.publishCancel(runId);
  // Its concurrency key is free at once; the run first in line is let through when its job next looks (GATE_RECHECK_MS).
  const gate = await deps.store.getFlow(runId).then((flow) => flow?.gate);
  if (gate) await new ConcurrencyGates({ redis: deps.store.redis, prefix: deps.store.prefix }).release(gate, [runId]);
  // Its children (child pipeline steps, agents' pipeline calls) end with it, at once.
  await cancelChildRuns(deps.store, runId, (store, childId) => cancelRun({ ...deps, store }, childId));
  // Children ended already (a worker cancels a child whose parent has ended) are released too.
  const release = deps.releaseWaits;
  if (release) await Promise.all([runId, ...(await childRunsOf(deps.store, runId))].map((id) => release(id)));
  const run = await deps.store.getRun(runId);
  return run ? { outcome: change.moved ? 'cancelled' : 'already_cancelled', run } : { outcome: 'not_found' };
}

export async function findRun(deps: { store: RunStore }, runId: string): Promise<RunRecord | null> {
  return RUN_ID.test(runId) ? deps.store.getRun(runId) : null;
}
