/**
 * What every stage job does around its tool call: skip a run that has ended, return the stored
 * output of a stage that finished before a crash, record the stage's progress and events, abort
 * on cancellation, and decide whether a failure is retried or ends the run.
 */
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { LIVE_STATUSES, TERMINAL_STATUSES, type RunError } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logger';
import { crashPoint, type RecordedStage, type RunStore, type StageStart } from '@switchyard/pipeline';
import { ModelCallError } from '@switchyard/models';
import { ToolCallError, type CircuitOpenError } from '@switchyard/tool-client';
import { ZodError } from 'zod';
import { CANCEL_HEARD_MARGIN_MS, type RunAborts } from './run-aborts.js';
import { attemptsLeft, circuitOpenCause, decideBreakerWait, DEFAULT_STAGE_BUDGET, type StageBudget } from './stage-budget.js';

export interface StageDeps {
  /** On the same Redis connection as the Workers that run the stages (see recordCompletion). */
  store: RunStore;
  aborts: RunAborts;
  logger: Logger;
  /** When a stage gives up (default DEFAULT_STAGE_BUDGET). */
  budget?: StageBudget | undefined;
}

export interface StageWork {
  signal: AbortSignal;
  /** 1 for the stage's first start, more after a retry or a crashed worker. */
  attempt: number;
  /** Outputs of the stages asked for in `inputs`. */
  inputs: Record<string, unknown>;
  /** The run's request (its input), when asked for with `withRequest`. */
  request: unknown;
  /** The map branch's item from the run's stored list, when asked for with `item` ('missing': the run has none stored). */
  item?: { value: unknown } | 'missing' | undefined;
  /**
   * Says the stage is running, once, if nobody has yet: call it before the stage's first event
   * of its own (content), so that readers see `running` before what the stage produces.
   */
  announce(): void;
}

/** How long a stage runs before its `running` event is written (default 250 ms); a quicker one only says it completed. */
export const RUNNING_EVENT_DELAY_MS = 250;

/** How a run ends with its last stage: completed with a result, or failed (the result could not be computed). */
export type RunEnd = { to: 'completed'; result: unknown } | { to: 'failed'; error: RunError };

/** What a stage's work returns when the stage turns out not to apply (its condition was false). */
export const SKIP_STAGE: unique symbol = Symbol('skip stage');

/**
 * What a stage's work returns when the stage goes on in another job (an agent's next turn): the
 * job ends, the stage stays running, nothing is recorded and nothing follows yet.
 */
export const CONTINUE_STAGE: unique symbol = Symbol('continue stage');

/**
 * What a stage's work returns to wait without holding a worker: its job goes to the delayed set
 * until `until` (or until something promotes it), marked so that it then resumes the stage rather
 * than starting it again. `afterParked` runs once the job is delayed: a last look for an answer
 * that came meanwhile, which then wakes the job itself.
 */
export class ParkStage {
  readonly until: number;
  readonly afterParked: ((job: Job) => Promise<void>) | undefined;
  constructor(options: { until: number; afterParked?: (job: Job) => Promise<void> }) {
    this.until = options.until;
    this.afterParked = options.afterParked;
  }
}

/** A stage failure that retrying cannot mend, with the code and details callers should see. */
export class StageFailedError extends Error {
  override name = 'StageFailedError';
  readonly code: string;
  readonly details: unknown;
  constructor(options: { code: string; message: string; details?: unknown }) {
    super(options.message);
    this.code = options.code;
    this.details = options.details;
  }
}

export function toRunError(error: unknown, stage: string): RunError {
  if (error instanceof StageFailedError) return { code: error.code, message: error.message, stage, retryable: false, details: error.details };
  if (error instanceof ModelCallError) return { code: error.code, message: error.message, stage, retryable: error.retryable, details: { status: error.status } };
  if (error instanceof ToolCallError) return { code: error.code, message: error.message, stage, retryable: error.retryable, details: { service: error.service, tool: error.tool, details: error.details } };
  if (error instanceof ZodError) return { code: 'invalid_job', message: `Invalid job data: ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, stage, retryable: false };
  return { code: 'stage_error', message: error instanceof Error ? error.message : String(error), stage, retryable: !(error instanceof UnrecoverableError) };
}

export interface StageSpec<T> {
  runId: string;
  batchId?: string | undefined;
  name: string;
  /** The job's lock token (BullMQ's processor argument), needed to delay the job on an open breaker. */
  token?: string | undefined;
  /** Earlier stages whose outputs this stage reads. */
  inputs?: readonly string[];
  /** Also read the run's request when starting. */
  withRequest?: boolean;
  /** Also read this map branch's item from the run's stored list when starting (see RunStore.expandStep). */
  item?: { step: string; index: number } | undefined;
  /**
   * Check at the start that the `inputs` stages are done: the stage was released by BullMQ as a
   * flow parent, which a child's removal does too (default false).
   */
  needsDone?: boolean;
  /** Fields of the run its completion answers (see RunStore.completeStage), e.g. what the next steps need. */
  watch?: readonly string[];
  /** This stage's budget, over the deps' (a step's own `retry`). */
  budget?: StageBudget | undefined;
  /**
   * The stage is its run's last: the run's end, from the stage's output and what the stage
   * started with, is written with the stage's completion, in one step.
   */
  endsRun?: ((done: { output: T; inputs: Record<string, unknown>; request: unknown }) => Promise<RunEnd>) | undefined;
  /**
   * The stage was started by an earlier job and goes on in this one (an agent's later turn): it is
   * read, not started again, so its attempts and events do not count this job (default false).
   */
  resume?: boolean | undefined;
  /**
   * The run's request and the `inputs`, carried in the job by the step that added it (StepJob.carried):
   * a first attempt then starts without a round trip (see carriedStart).
   */
  carried?: { request?: unknown; inputs: Record<string, unknown> } | undefined;
  work: (ctx: StageWork) => Promise<T | typeof SKIP_STAGE | typeof CONTINUE_STAGE | ParkStage>;
  /**
   * The step's `on_error` fallback (engine/fallback.ts): called when the stage fails for good;
   * true when the fallback was taken, and then the run goes on and runStage throws
   * FallbackTakenError, which the job completes with (default: none, the run fails).
   */
  fallback?: ((error: RunError) => Promise<boolean>) | undefined;
}

/** The stage failed for good and its fallback runs instead: its job completes, the run goes on. */
export class FallbackTakenError extends Error {
  override name = 'FallbackTakenError';
}

/**
 * Runs `work` as stage `name` of run `runId`; resolves with its output (stored in the run) and
 * the inputs it was given. One round trip to Redis before the work (the start); the completion
 * record is sent after it without waiting.
 */
export interface StageOutcome<T> {
  output: T | typeof SKIP_STAGE | typeof CONTINUE_STAGE;
  inputs: Record<string, unknown>;
  request: unknown;
  /** The completion's answer (with the watched fields); absent when the stage had finished before. */
  recorded?: Promise<RecordedStage> | undefined;
  /** The stage's completion ended its run (see StageSpec.endsRun). */
  ended?: boolean;
}

/**
 * A start that needs no round trip: the job's first attempt (BullMQ has never handed it out
 * before, so no earlier attempt can have completed the stage) carrying what the start would read,
 * of a run this process has not heard has ended, and would have heard so (it has listened to
 * every cancel since a while before the job was added). Its start record is written once the stage
 * lasts or announces itself (runningAnnouncer), fails, or with its completion: a quick stage
 * costs its completion alone, as a BullMQ job does. A run cancelled meanwhile is seen by that
 * record, by the cancel message, or by RunAborts' check within a second, which abort the work.
 */
function carriedStart(deps: StageDeps, job: Job, stage: StageSpec<unknown>): Extract<StageStart, { kind: 'started' }> | undefined {
  const { carried } = stage;
  if (!carried || stage.resume || stage.needsDone || stage.item || stage.endsRun) return undefined;
  if (job.attemptsStarted > 1 || job.attemptsMade > 0 || deps.aborts.hasEnded(stage.runId)) return undefined;
  // A cancel this process may not have heard (it started, or was cut off, after the job was added).
  if (!deps.aborts.heardAllSince(job.timestamp - CANCEL_HEARD_MARGIN_MS)) return undefined;
  const inputs: Record<string, unknown> = {};
  for (const name of stage.inputs ?? []) inputs[name] = carried.inputs[name] ?? null;
  return { kind: 'started', attempt: 1, inputs, request: stage.withRequest ? (carried.request ?? null) : null };
}

export async function runStage<T>(outer: StageDeps, job: Job, stage: StageSpec<T>): Promise<StageOutcome<T>> {
  const deps = stage.budget ? { ...outer, budget: stage.budget } : outer;
  const { store } = deps;
  const { runId, name } = stage;
  const carried = carriedStart(deps, job, stage as StageSpec<unknown>);
  // When a carried start began: its record, written later, says so.
  const startedAt = carried ? new Date().toISOString() : undefined;
  const start = carried ?? (await store.startStage({ runId, stage: name, batchId: stage.batchId ?? null, inputs: stage.inputs, withRequest: stage.withRequest, quiet: true, needsDone: stage.needsDone, ...(stage.item ? { item: stage.item } : {}), ...(stage.resume ? { peek: true } : {}) }));
  if (start.kind === 'missing') throw new UnrecoverableError(`run ${runId} does not exist`);
  if (start.kind === 'unready') {
    // Its release was a child's removal, not its completion: what it needs will not come.
    const error = new StageFailedError({ code: 'run_stranded', message: `${name} was released before ${start.need} was done: the job of ${start.need} is gone` });
    throw await handleFailure(deps, job, { runId, name, error, final: true });
  }
  if (start.kind === 'ended') {
    await markEnded(deps, runId, name);
    throw new UnrecoverableError(`run ${runId} is ${start.status}`);
  }
  // Finished before a crash: never run it again.
  if (start.kind === 'done') return { output: start.output as T, inputs: start.inputs, request: start.request };
  if (start.kind === 'peek' && !stage.resume) throw new Error('a stage start answered a peek');
  if (carried) crashPoint('stage.carried');
  else crashPoint('stage.started');
  // A resumed stage's attempt is its job's: the stage itself started long before.
  const attempt = start.kind === 'peek' ? job.attemptsMade + 1 : start.attempt;

  const tracked = deps.aborts.track(runId);
  // A retry was announced by its start; a first attempt is, once it lasts or produces something.
  const running = runningAnnouncer(deps, { runId, name, batchId: stage.batchId, attempt: stage.resume ? 0 : attempt, startedAt });
  try {
    const output = await stage.work({ signal: tracked.signal, attempt, inputs: start.inputs, request: start.request, item: start.kind === 'started' || start.kind === 'peek' ? start.item : undefined, announce: running.announce });
    crashPoint('stage.worked');
    await running.stop();
    if (output === CONTINUE_STAGE) return { output, inputs: start.inputs, request: start.request };
    if (output instanceof ParkStage) throw await park(job, stage.token, output);
    if (output !== SKIP_STAGE && stage.endsRun) {
      const end = await stage.endsRun({ output, inputs: start.inputs, request: start.request });
      await store.finishStage({ runId, stage: name, batchId: stage.batchId ?? null, output, end });
      crashPoint('run.finished');
      return { output, inputs: start.inputs, request: start.request, ended: true };
    }
    const recorded = output === SKIP_STAGE ? store.skipStage({ runId, stage: name, batchId: stage.batchId ?? null, watch: stage.watch }) : (await recordCompletion(deps, { runId, name, batchId: stage.batchId ?? null, output, watch: stage.watch, startedAt })).recorded;
    if (output === SKIP_STAGE) await recorded;
    crashPoint('stage.completed');
    return { output, inputs: start.inputs, request: start.request, recorded };
  } catch (error) {
    await running.stop();
    // A failure is told against its attempt: a carried start not yet recorded is, first.
    await running.recordStart();
    // The work waits in the delayed set (a child pipeline step's child run): no failure, no attempt spent.
    if (error instanceof DelayedError) throw error;
    const open = circuitOpenCause(error);
    if (open && stage.token) throw await waitForBreaker(deps, job, { runId, name, token: stage.token, error: open, fallback: stage.fallback });
    throw await handleFailure(deps, job, { runId, name, error, fallback: stage.fallback });
  } finally {
    tracked.release();
  }
}

/** Sends the job to the delayed set as `parked` asks, to resume its stage when it wakes. */
async function park(job: Job, token: string | undefined, parked: ParkStage): Promise<DelayedError> {
  if (!token) throw new Error('a stage parks with its job\'s lock token');
  if (!(job.data as { resumed?: unknown }).resumed) await job.updateData({ ...(job.data as object), resumed: true });
  await job.moveToDelayed(parked.until, token);
  await parked.afterParked?.(job);
  return new DelayedError();
}

/**
 * A first attempt's `running` event, written once the stage has run RUNNING_EVENT_DELAY_MS or
 * announces itself sooner (before its first content), and never for a stage done sooner. A
 * carried start (`startedAt`) has its start record written with it: the run's view then shows the
 * stage running, and a run found ended aborts the work.
 */
function runningAnnouncer(deps: StageDeps, stage: { runId: string; name: string; batchId?: string | undefined; attempt: number; startedAt?: string | undefined }): { announce(): void; stop(): Promise<unknown>; recordStart(): Promise<unknown> } {
  let pending = stage.attempt === 1;
  let unrecorded = stage.startedAt !== undefined;
  // Appends and completions are batched apart (event-appends.ts, stage-writes.ts): the stage's end
  // waits for its running event, so that readers never see them the other way round.
  let written: Promise<unknown> = Promise.resolve();
  const recordStart = (): Promise<unknown> => {
    if (!unrecorded) return Promise.resolve();
    unrecorded = false;
    return deps.store.startStage({ runId: stage.runId, stage: stage.name, batchId: stage.batchId ?? null, quiet: true, startedAt: stage.startedAt }).then(
      (start) => (start.kind === 'ended' ? deps.aborts.abort(stage.runId, start.status) : undefined),
      (error: unknown) => deps.logger.warn({ err: error, run_id: stage.runId, stage: stage.name }, 'the stage\'s start could not be recorded'),
    );
  };
  const timer = pending ? setTimeout(() => announce(), RUNNING_EVENT_DELAY_MS) : undefined;
  const announce = () => {
    if (!pending) return;
    pending = false;
    clearTimeout(timer);
    const started = recordStart();
    const event = deps.store.appendEvent(stage.runId, 'stage', { stage: stage.name, status: 'running', attempt: stage.attempt }).catch((error: unknown) => {
      deps.logger.warn({ err: error, run_id: stage.runId, stage: stage.name }, 'the stage\'s running event could not be written');
    });
    written = Promise.all([started, event]);
  };
  return {
    announce,
    recordStart,
    stop: () => {
      pending = false;
      clearTimeout(timer);
      return written;
    },
  };
}

/**
 * Hands the stage's completion record to the connection without waiting for Redis to answer.
 * The store shares its connection with the Worker running the job, and one connection keeps its
 * commands in order, so the record is in Redis before BullMQ's completion of the job (sent after
 * this returns), and so before any later stage can start. Waiting for the reply would add a round
 * trip to every hop. Should the write fail, the connection is down and BullMQ's completion fails
 * with it (the job is taken over and the stage runs again), or the script broke, which the next
 * stage reports as a missing input.
 */
async function recordCompletion(deps: StageDeps, done: { runId: string; name: string; batchId: string | null; output: unknown; watch?: readonly string[] | undefined; startedAt?: string | undefined }): Promise<{ recorded: Promise<RecordedStage> }> {
  const { sent, recorded } = deps.store.completeStage({ runId: done.runId, stage: done.name, batchId: done.batchId, output: done.output, watch: done.watch, startedAt: done.startedAt });
  recorded.catch((error: unknown) => {
    deps.logger.error({ err: error, run_id: done.runId, stage: done.name }, 'the stage completion record failed');
  });
  await sent;
  return { recorded };
}

/**
 * The stage met an open breaker: nothing was called, so no attempt is spent. The job goes back to
 * the delayed set until the breaker may let a probe through; once the wait budget is spent, the
 * stage fails with the service's last real error.
 */
async function waitForBreaker(deps: StageDeps, job: Job, wait: { runId: string; name: string; token: string; error: CircuitOpenError; fallback?: StageSpec<unknown>['fallback'] }): Promise<Error> {
  const { store, logger } = deps;
  const { runId, name } = wait;
  const since = (job.data as { breaker_wait_since?: unknown }).breaker_wait_since;
  const decision = decideBreakerWait({ error: wait.error, since: typeof since === 'number' ? since : undefined, budget: deps.budget ?? DEFAULT_STAGE_BUDGET });
  if (decision.kind === 'give-up') return handleFailure(deps, job, { runId, name, error: decision.error, final: true, fallback: wait.fallback });
  if (typeof since !== 'number') {
    // Said once per stage, not at every wake-up.
    logger.warn({ run_id: runId, stage: name, service: wait.error.service }, 'the service\'s breaker is open; the stage waits for it');
    await store.setStageStatus({ runId, stage: name, status: 'retrying', error: toRunError(wait.error, name) });
    await store.appendEvent(runId, 'error', { ...toRunError(wait.error, name), will_retry: true });
    await job.updateData({ ...(job.data as object), breaker_wait_since: decision.since });
  }
  await job.moveToDelayed(decision.until, wait.token);
  return new DelayedError();
}

/** Records a failure and returns what to throw: the error to retry, or an UnrecoverableError. */
export async function handleFailure(deps: StageDeps, job: Job, failure: { runId: string; name: string; error: unknown; final?: boolean; fallback?: StageSpec<unknown>['fallback'] }): Promise<Error> {
  const { store, logger } = deps;
  const { runId, name, error } = failure;
  const status = await store.getStatus(runId);
  if (status && TERMINAL_STATUSES.includes(status)) {
    await markEnded(deps, runId, name);
    return new UnrecoverableError(`run ${runId} is ${status}`);
  }
  const runError = toRunError(error, name);
  const left = failure.final ? 0 : attemptsLeft({ jobAttempts: job.opts.attempts, attemptsMade: job.attemptsMade, budget: deps.budget ?? DEFAULT_STAGE_BUDGET });
  if (runError.retryable && left > 0) {
    logger.warn({ run_id: runId, stage: name, err: runError, attempts_left: left }, 'stage failed; it will be retried');
    await store.setStageStatus({ runId, stage: name, status: 'retrying', error: runError });
    crashPoint('stage.retry-marked');
    await store.appendEvent(runId, 'error', { ...runError, will_retry: true });
    return error instanceof Error ? error : new Error(String(error));
  }
  if (failure.fallback && (await failure.fallback(runError))) {
    await store.appendEvent(runId, 'error', { ...runError, will_retry: false });
    return new FallbackTakenError(runError.message);
  }
  logger.error({ run_id: runId, stage: name, err: runError }, 'stage failed; the run fails');
  await store.setStageStatus({ runId, stage: name, status: 'failed', error: runError });
  crashPoint('stage.failed-marked');
  await store.appendEvent(runId, 'error', { ...runError, will_retry: false });
  await store.transition({ runId, from: LIVE_STATUSES, to: 'failed', error: runError });
  crashPoint('run.failed');
  await store.publishCancel(runId); // stop the siblings still working
  return new UnrecoverableError(runError.message);
}

/**
 * A stage that will not run because its run ended: shown as cancelled unless it had finished, and
 * its job, which fails as a refusal, marked for the run's compaction to remove (compactor.ts).
 */
export async function markEnded(deps: Pick<StageDeps, 'store'>, runId: string, name: string): Promise<void> {
  await deps.store.markRefused(runId, name);
  const run = await deps.store.getRun(runId);
  const stage = run?.stages.find((s) => s.name === name);
  if (stage && !['completed', 'skipped', 'failed', 'cancelled'].includes(stage.status)) {
    // Quiet: the run's `done` event has been written and is the last a client should see.
    await deps.store.setStageStatus({ runId, stage: name, status: 'cancelled', quiet: true });
  }
}
