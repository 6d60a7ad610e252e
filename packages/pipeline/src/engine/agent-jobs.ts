/**
 * The jobs of an agent step. Its first model turn is the step's own job; a turn that asks for
 * tools is followed by one job per call (on the queue of the tool's service, or the agent queue
 * for pipelines and MCP tools) as the children of a BullMQ flow whose parent is the next turn:
 * BullMQ releases the next turn once every call has completed, with no worker waiting. Job ids
 * come from the run, the stage, the turn and the call's place, so a turn recorded before a crash
 * and enqueued again adds each job once.
 */
import { jobId, type StepJob } from '../catalog.js';
import type { AgentToolTarget } from '../definition/compile-agent.js';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { AGENT_QUEUE, toolQueue } from '../definition/queues.js';
import { stepJobOptions, type StepJobSpec } from './step-jobs.js';

/** Where a call of `tool` runs: its service's queue, or the agent queue. */
export const agentCallQueue = (tool: AgentToolTarget) => (tool.kind === 'service' ? toolQueue(tool.service) : AGENT_QUEUE);

export const agentTurnJobId = (runId: string, stage: string, turn: number) => `${jobId(runId, stage)}@t${turn}`;
export const agentCallJobId = (runId: string, stage: string, turn: number, index: number) => `${jobId(runId, stage)}@t${turn}c${index}`;

/**
 * The job of turn `turn` (after the first) with, as its children, the jobs of the calls of the turn
 * before. A call that fails for good records its failure as its result (the model reads it), so
 * a child fails only when its run has ended: it then releases the next turn, which finds the run
 * ended and stops.
 */
export function agentTurnJob(options: { pipeline: CompiledPipeline; step: CompiledStep; data: StepJob; stage: string; turn: number; calls: readonly { index: number; tool: AgentToolTarget }[] }): StepJobSpec {
  const { step, data, stage, turn } = options;
  const base: StepJob = { run_id: data.run_id, pipeline: data.pipeline, version: data.version, step: data.step };
  if (data.batch_id) base.batch_id = data.batch_id;
  if (data.flow) base.flow = data.flow;
  if (data.branch) base.branch = data.branch;
  const opts = stepJobOptions(step);
  const children = options.calls.map(({ index, tool }) => ({
    queue: agentCallQueue(tool),
    data: { ...base, agent_call: { turn: turn - 1, index } },
    opts: { ...opts, jobId: agentCallJobId(data.run_id, stage, turn - 1, index), removeDependencyOnFailure: true },
  }));
  return { queue: step.queue, data: { ...base, agent_turn: turn }, opts: { ...opts, jobId: agentTurnJobId(data.run_id, stage, turn) }, ...(children.length > 0 ? { children } : {}) };
}
