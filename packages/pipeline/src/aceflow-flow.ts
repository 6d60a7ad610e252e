/**
 * An AceFlow stage-generation run as one BullMQ flow: the stages its mode picks, in order, each
 * the child of the next, so a stage starts only when the one before it has completed.
 */
import type { FlowJob } from 'bullmq';
import type { AceflowRunRequest, AceflowStageId } from '@switchyard/contracts';
import { JOB_CATALOG, jobId, type AceflowStageJob } from './catalog.js';
import type { StoryRunsDeps } from './story-runs.js';
import { newRunId } from './run-store.js';

/** The modes' stages, as the AceFlow engine defines them (kept in step by a test). */
export const ACEFLOW_MODE_STAGES: Readonly<Record<AceflowRunRequest['project']['mode'], readonly AceflowStageId[]>> = {
  complete: ['s1_user_story', 's2_tasks_group', 's3_testcases', 's4_implementation', 's5_test_report', 's6_codereview', 's7_demo_script', 's8_summary_report'],
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

export function aceflowFlow(runId: string, request: AceflowRunRequest, stages: readonly AceflowStageId[]): FlowJob {
  const options = JOB_CATALOG['aceflow.stage'].options;
  let child: FlowJob | undefined;
  stages.forEach((stage, i) => {
    const last = i === stages.length - 1;
    const data: AceflowStageJob = { run_id: runId, project: request.project, stage, final: last, ...(i === 0 && request.analysis ? { analysis: request.analysis } : {}) };
    const node: FlowJob = {
      name: 'aceflow.stage',
      queueName: JOB_CATALOG['aceflow.stage'].queue,
      data,
      // Every stage but the last is a child: its failure fails the next stage instead of leaving it waiting.
      opts: { ...options, jobId: jobId(runId, stage), ...(last ? {} : { failParentOnFailure: true }) },
      ...(child ? { children: [child] } : {}),
    };
    child = node;
  });
  if (!child) throw new AceflowRangeError('a run needs at least one stage');
  return child;
}

/** Records a queued AceFlow run and enqueues its flow. */
export async function startAceflowRun(deps: Pick<StoryRunsDeps, 'store' | 'queues'>, options: { request: AceflowRunRequest; runId?: string }): Promise<{ runId: string; stages: AceflowStageId[] }> {
  const stages = aceflowRunStages(options.request);
  const runId = options.runId ?? newRunId();
  await deps.store.createRun({ id: runId, kind: 'aceflow', request: options.request, stages });
  await deps.queues.flows.add(aceflowFlow(runId, options.request, stages));
  return { runId, stages };
}
