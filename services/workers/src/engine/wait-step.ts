/**
 * A wait step: its output is its signal's payload. A signal already received (it may come before
 * the run reaches the step) is used at once; otherwise the wait is recorded (the run is `waiting`,
 * the inbox lists it) and the job parks in the delayed set until the timeout, from which the
 * signal's route wakes it. A job that wakes with no signal has timed out: the step fails, or gives
 * null (`on_timeout: continue`).
 */
import type { Job } from 'bullmq';
import { crashPoint, jobId, type CompiledPipeline, type CompiledWait, type RunStore, type RunWaits, type StepJob } from '@switchyard/pipeline';
import { ParkStage, StageFailedError } from '../stage-runner.js';

export interface WaitStepDeps {
  store: RunStore;
  waits: RunWaits;
}

export async function runWaitStep(deps: WaitStepDeps, options: { job: Job; pipeline: CompiledPipeline; wait: CompiledWait; data: StepJob; stage: string; queue: string }): Promise<unknown> {
  const { wait, data, stage } = options;
  const runId = data.run_id;
  const signal = await deps.waits.signalOf(runId, wait.signal);
  if (signal) {
    await resolveAndTell(deps, { runId, stage, signal: wait.signal, outcome: 'signalled' });
    return signal.payload;
  }
  const existing = await deps.waits.get(runId, 'signal', wait.signal);
  const timeoutAt = existing?.timeout_at ? Date.parse(existing.timeout_at) : Date.now() + wait.timeoutMs;
  if (existing && Date.now() >= timeoutAt) {
    await resolveAndTell(deps, { runId, stage, signal: wait.signal, outcome: 'timed_out' });
    crashPoint('wait.timed-out');
    return timedOut(wait, stage);
  }
  if (!existing) {
    const event = { stage, kind: 'signal', key: wait.signal, state: 'pending', signal: wait.signal } as const;
    const parked = await deps.waits.park({ kind: 'signal', key: wait.signal, run_id: runId, pipeline: options.pipeline.name, stage, created_at: new Date().toISOString(), timeout_at: new Date(timeoutAt).toISOString(), job: { queue: options.queue, id: jobId(runId, stage) }, schema: wait.definition.schema }, event);
    // It timed out before a crash (a signal would have been found above): the same outcome again, not a second wait.
    if (parked === 'resolved') return timedOut(wait, stage);
  }
  return new ParkStage({
    until: timeoutAt,
    // A signal that came between the look above and the park finds no delayed job to wake: look again.
    afterParked: async (job) => {
      if (await deps.waits.signalOf(runId, wait.signal)) await job.promote().catch(() => undefined);
    },
  });
}

function timedOut(wait: CompiledWait, stage: string): null {
  if (wait.definition.on_timeout === 'continue') return null;
  throw new StageFailedError({ code: 'wait_timed_out', message: `${stage} waited ${Math.round(wait.timeoutMs / 1000)} s for signal ${wait.signal}, which did not come`, details: { signal: wait.signal, timeout_ms: wait.timeoutMs } });
}

/** Ends the wait with its `resolved` event in one step: a crash between them cannot lose the event. */
async function resolveAndTell(deps: WaitStepDeps, options: { runId: string; stage: string; signal: string; outcome: string }): Promise<void> {
  await deps.waits.resolve(options.runId, 'signal', options.signal, { stage: options.stage, outcome: options.outcome, event: { stage: options.stage, kind: 'signal', key: options.signal, state: 'resolved', signal: options.signal, outcome: options.outcome } });
}
