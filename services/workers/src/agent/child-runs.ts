/**
 * A pipeline as an agent's tool: each call is a child run of that pipeline, its input the call's
 * arguments, its id derived from the call (so a call made again after a crash finds the run it
 * started). The call's job does not hold a worker while the child runs: it goes back to the
 * delayed set and looks again, less often as the child takes longer. The child's result (or its
 * error) is the call's result. When the parent has ended, a child still running is cancelled.
 */
import { createHash } from 'node:crypto';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import { cancelRun, InputError, RunLimitError, startPipelineRun, type AgentToolTarget, type PipelineQueues, type PipelineStore, type RunStore, type StepJob } from '@switchyard/pipeline';

export interface ChildRunDeps {
  store: RunStore;
  pipelines: PipelineStore;
  queues: PipelineQueues;
}

/** First and longest wait between looks at a child run (ms). */
export const CHILD_POLL_MS = { first: 250, max: 5000 } as const;

/** The child run of call `index` of turn `turn` of `stage` in run `runId`: a run id of its own, the same every time. */
export function childRunId(runId: string, stage: string, turn: number, index: number): string {
  return `run_${createHash('sha256').update(`${runId}/${stage}/${turn}/${index}`).digest('hex').slice(0, 32)}`;
}

export class ChildRunFailedError extends UnrecoverableError {
  override name = 'ChildRunFailedError';
}

export async function callPipeline(deps: ChildRunDeps, options: { job: Job; token: string | undefined; data: StepJob & { agent_call: NonNullable<StepJob['agent_call']> }; runId: string; stage: string; tool: Extract<AgentToolTarget, { kind: 'pipeline' }>; args: Record<string, unknown>; cancelOnly?: boolean }): Promise<unknown> {
  const { job, data, runId, stage, tool } = options;
  const childId = childRunId(runId, stage, data.agent_call.turn, data.agent_call.index);
  let status = await deps.store.getStatus(childId);
  if (options.cancelOnly) {
    if (status && !TERMINAL_STATUSES.includes(status)) await cancelRun({ store: deps.store }, childId);
    return undefined;
  }
  if (!status) {
    const pipeline = await deps.pipelines.compiled(tool.pipeline, tool.version);
    if (!pipeline) throw new ChildRunFailedError(`no pipeline ${tool.pipeline}${tool.version ? ` version ${tool.version}` : ''} is registered`);
    try {
      await startPipelineRun({ store: deps.store, queues: deps.queues }, { pipeline, input: options.args, runId: childId });
    } catch (error) {
      // An input the pipeline refuses is the model's mistake: it reads why, and nothing is retried.
      if (error instanceof InputError || error instanceof RunLimitError) throw new ChildRunFailedError(`pipeline ${tool.pipeline} refused the input: ${error.message}`);
      throw error;
    }
    await deps.store.redis.hset(deps.store.keys.run(childId), 'parent', JSON.stringify({ run_id: runId, stage, call: data.agent_call }));
    status = 'queued';
  }
  if (TERMINAL_STATUSES.includes(status)) {
    const child = await deps.store.getRun(childId);
    if (status === 'completed') return { run_id: childId, result: child?.result ?? null };
    throw new ChildRunFailedError(`child run ${childId} of pipeline ${tool.pipeline} ${status}: ${child?.error?.message ?? 'no reason given'}`);
  }
  if (!options.token) throw new Error('a child run is awaited by a job with a lock token');
  const since = data.child_wait_since ?? Date.now();
  if (data.child_wait_since === undefined) await job.updateData({ ...data, child_wait_since: since });
  const wait = Math.min(CHILD_POLL_MS.max, Math.max(CHILD_POLL_MS.first, (Date.now() - since) / 4));
  await job.moveToDelayed(Date.now() + wait, options.token);
  throw new DelayedError();
}
