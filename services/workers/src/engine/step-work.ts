/**
 * The work of one step (or map branch) once started: its arguments evaluated, its tool called
 * or its kind run, again while a bounded loop's `until` is false. Streamed chunks become the
 * run's `content` events, joined per short interval (content-coalescer.ts); an async call's task is written to the job so that a worker replacing
 * a crashed one polls that task instead of starting over.
 */
import type { Job } from 'bullmq';
import { ExpressionError, isTruthy, RunLimitError, type CompiledStep, type ExpressionContext, type RemoteTaskRef, type RunStore } from '@switchyard/pipeline';
import { ToolTaskLostError, type RemoteTask } from '@switchyard/tool-client';
import { StageFailedError } from '../stage-runner.js';
import { ContentCoalescer } from './content-coalescer.js';
import type { StepKinds } from './step-kinds.js';
import type { StepToolCall, StepTools } from '../tools.js';

export interface StepWorkDeps {
  store: RunStore;
  tools: StepTools;
  kinds: StepKinds;
  /** Ms a stream's chunks are gathered into one content event (default CONTENT_FLUSH_MS). */
  contentFlushMs?: number | undefined;
}

export interface StepWorkOptions {
  job: Job;
  step: CompiledStep;
  stage: string;
  /** The branch key, or the stage: what `content` events name as their section. */
  section: string;
  context: ExpressionContext;
  signal: AbortSignal;
  attempt: number;
  remoteTask: RemoteTaskRef | undefined;
  /** Says the stage is running before its first content (see StageWork.announce). */
  announce(): void;
}

/** An expression that fails at run time, or a value past a run limit, cannot pass by retrying. */
export function asStepFailure(error: unknown): unknown {
  if (error instanceof ExpressionError) return new StageFailedError({ code: error.code, message: error.message, details: { place: error.place } });
  if (error instanceof RunLimitError) return new StageFailedError({ code: error.code, message: error.message, details: error.details });
  return error;
}

export function remoteTaskHooks(job: Job, remote: RemoteTaskRef | undefined): { resumeTask: RemoteTask | undefined; onTaskAccepted(task: RemoteTask): Promise<void>; forget(error: unknown): Promise<void> } {
  return {
    resumeTask: remote ? { taskId: remote.task_id, pollUrl: remote.poll_url } : undefined,
    onTaskAccepted: (task) => job.updateData({ ...(job.data as object), remote_task: { task_id: task.taskId, poll_url: task.pollUrl } }),
    // A task the service no longer knows is dropped, so the retry starts anew.
    forget: async (error) => {
      if (!(error instanceof ToolTaskLostError)) return;
      const { remote_task: _dropped, ...rest } = job.data as { remote_task?: unknown };
      await job.updateData(rest);
    },
  };
}

/** One run of the step: evaluate its arguments, then call its tool or run its kind. */
async function runOnce(deps: StepWorkDeps, options: StepWorkOptions, context: ExpressionContext, pending: Promise<unknown>[]): Promise<unknown> {
  const { step, stage, section, signal } = options;
  const evaluated = step.args.evaluate(context);
  const args = evaluated instanceof Promise ? await evaluated : evaluated;
  const runId = context.run_id;
  if (step.target.kind === 'uses') {
    const kind = deps.kinds[step.target.uses as keyof StepKinds];
    if (!kind) throw new StageFailedError({ code: 'unknown_step_kind', message: `this worker has no step kind ${step.target.uses}` });
    return kind.run({ args, runId, stage, signal, attempt: options.attempt, store: deps.store, announce: options.announce });
  }
  if (step.target.kind !== 'tool') throw new StageFailedError({ code: 'unknown_step_kind', message: `${stage} is no tool step` });
  // The same key for every attempt and takeover of this stage's call (each iteration of a loop its own).
  const idempotencyKey = `${runId}/${stage}${typeof context.iteration === 'number' ? `/${context.iteration}` : ''}`;
  const call: StepToolCall = { service: step.target.service, tool: step.target.tool, args, mode: step.definition.mode, timeoutMs: step.definition.timeout, signal, idempotencyKey };
  // Each mode is given the hooks it uses: a stream its chunks' and resets' (told as events), an
  // async call its task's (kept in the job's data); a plain call none.
  const mode = step.definition.mode ?? deps.tools.modeOf(step.target.service);
  if (mode === 'async') return callAsync(deps, { call, job: options.job, remoteTask: options.remoteTask });
  if (mode !== 'stream') return deps.tools.call(call);
  const append = (event: () => Promise<unknown>) => {
    options.announce();
    pending.push(event());
  };
  // Made at the first chunk.
  let content: ContentCoalescer | undefined;
  call.onChunk = (chunk) => (content ??= new ContentCoalescer({ emit: (text) => append(() => deps.store.appendEvent(runId, 'content', { stage, section, chunk: text })), flushMs: deps.contentFlushMs })).push(chunk);
  call.onReset = () => {
    content?.drop();
    append(() => deps.store.appendEvent(runId, 'reset', { stage, section }));
  };
  try {
    return await deps.tools.call(call);
  } finally {
    // What arrived before the call ended is told, even when it failed (a reset follows a retry).
    content?.flush();
  }
}

/** An async call: its accepted task goes into the job's data, and a task the service lost is dropped from it. */
async function callAsync(deps: StepWorkDeps, options: { call: StepToolCall; job: Job; remoteTask: RemoteTaskRef | undefined }): Promise<unknown> {
  const hooks = remoteTaskHooks(options.job, options.remoteTask);
  try {
    return await deps.tools.call({ ...options.call, resumeTask: hooks.resumeTask, onTaskAccepted: hooks.onTaskAccepted });
  } catch (error) {
    await hooks.forget(error);
    throw error;
  }
}

/** The step's output: one run, or runs until `repeat.until` holds or `repeat.max` is reached. */
export async function runStepWork(deps: StepWorkDeps, options: StepWorkOptions): Promise<unknown> {
  const { step, stage, section } = options;
  const runId = options.context.run_id;
  const pending: Promise<unknown>[] = [];
  const streams = step.target.kind === 'uses' || (step.target.kind === 'tool' && (step.definition.mode ?? deps.tools.modeOf(step.target.service)) === 'stream');
  // A previous attempt may have streamed part of this stage before it broke.
  if (options.attempt > 1 && streams) pending.push(deps.store.appendEvent(runId, 'reset', { stage, section }));
  const loop = step.definition.repeat;
  try {
    if (!loop || !step.until) {
      const output = await runOnce(deps, options, options.context, pending);
      await Promise.all(pending);
      return output;
    }
    let previous: unknown;
    for (let iteration = 1; ; iteration += 1) {
      const context = { ...options.context, iteration, ...(previous === undefined ? {} : { previous }) };
      if (iteration > 1 && streams) {
        options.announce();
        pending.push(deps.store.appendEvent(runId, 'reset', { stage, section }));
      }
      const output = await runOnce(deps, options, context, pending);
      await Promise.all(pending.splice(0));
      await deps.store.redis.hset(deps.store.keys.run(runId), `${stage}.iterations`, iteration);
      if (isTruthy(await step.until.evaluate({ ...context, output }))) return output;
      if (iteration >= loop.max) {
        if (loop.on_limit === 'fail') throw new StageFailedError({ code: 'loop_limit', message: `steps.${step.name}.repeat: until was still false after ${loop.max} runs`, details: { iterations: loop.max } });
        return output;
      }
      previous = output;
    }
  } catch (error) {
    await Promise.allSettled(pending);
    throw asStepFailure(error);
  }
}
