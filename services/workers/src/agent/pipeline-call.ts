/**
 * A pipeline as an agent's tool: each call is a child run of that pipeline (engine/child-runs.ts),
 * its input the call's arguments, its id derived from the call. The call's result is
 * `{run_id, status: "completed", result}`, the child's id and result; a child that fails gives the model its error. When the parent has ended, a
 * child still running is cancelled.
 */
import type { Job } from 'bullmq';
import { childRunField, type AgentToolTarget, type StepJob } from '@switchyard/pipeline';
import { awaitChildRun, cancelChildRun, childRunId, type ChildRunDeps } from '../engine/child-runs.js';

export type { ChildRunDeps } from '../engine/child-runs.js';

export async function callPipeline(deps: ChildRunDeps, options: { job: Job; token: string | undefined; data: StepJob & { agent_call: NonNullable<StepJob['agent_call']> }; runId: string; stage: string; tool: Extract<AgentToolTarget, { kind: 'pipeline' }>; args: Record<string, unknown>; cancelOnly?: boolean }): Promise<unknown> {
  const { data, runId, stage, tool } = options;
  const call = data.agent_call;
  const childId = childRunId(runId, stage, call.turn, call.index);
  if (options.cancelOnly) return cancelChildRun(deps, childId);
  const { result } = await awaitChildRun(deps, {
    job: options.job,
    token: options.token,
    data,
    parent: { runId, stage, call },
    childId,
    linkField: childRunField(stage, call),
    pipeline: { name: tool.pipeline, version: tool.version },
    input: () => Promise.resolve(options.args),
  });
  // The keys the MCP bridge's pipeline_<name> tool answers a completed run with (it adds its pipeline, progress and timed_out).
  return { run_id: childId, status: 'completed', result };
}
