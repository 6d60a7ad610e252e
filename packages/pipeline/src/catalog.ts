/**
 * The job catalog: every job the engine enqueues, with its queue, payload schema and retry
 * options. The orchestrator builds jobs from it and the workers parse every payload with it.
 */
import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * Length of BullMQ's own event stream per queue (its default is 10,000). Nothing here reads those
 * streams (runs have their own events); a thousand is enough to look into a queue by hand.
 */
export const BULLMQ_EVENTS_MAXLEN = 1000;

/**
 * Queues with fixed names. Step jobs run on one queue per tool service (`tool-<service>`) or
 * step kind (`kind-<kind>`): see definition/queues.ts.
 */
export const QUEUES = {
  dispatch: 'run-dispatch',
  scheduleTick: 'schedule-tick',
  notifyDelivery: 'notify-delivery',
} as const;

/** Where an async tool call was accepted, so a replacement worker polls it instead of starting over. */
export const RemoteTaskRef = z.object({ task_id: z.string().min(1), poll_url: z.string().min(1) });
export type RemoteTaskRef = z.infer<typeof RemoteTaskRef>;

const PipelineRef = z.object({ name: z.string().min(1), version: z.number().int().positive() });

/** Priority classes: 1 goes first, 9 last (as BullMQ's and Temporal's priorities). */
export const PRIORITY_FIRST = 1;
export const PRIORITY_LAST = 9;
/** A single run started by a person or an agent: ahead of batch work. */
export const PRIORITY_SINGLE_RUN = 3;
/** The runs of a batch or a schedule. */
export const PRIORITY_BATCH = 6;
/** Most characters of a fair-share key (a longer value is cut, as keys are compared whole). */
export const MAX_FAIR_KEY_CHARS = 200;

/**
 * A concurrency key's gate a run or a step passes through: at most `limit` holders of `scope` +
 * `value` at once (flow/concurrency-gate.ts).
 */
export const GateTag = z.object({ scope: z.string().min(1).max(200), value: z.string().max(MAX_FAIR_KEY_CHARS), limit: z.number().int().min(1).max(10_000) });
export type GateTag = z.infer<typeof GateTag>;

/**
 * How a run's jobs are served (flow/): its priority class, the key it shares a queue fairly
 * under (the caller's API key unless its pipeline names another), that key's weight, and the
 * concurrency key its run holds. Every job of the run carries it: map branches, agent turns and
 * calls, child runs, retries.
 */
export const FlowTag = z.object({
  priority: z.number().int().min(PRIORITY_FIRST).max(PRIORITY_LAST),
  key: z.string().min(1).max(MAX_FAIR_KEY_CHARS),
  weight: z.number().min(0.01).max(100).optional(),
  gate: GateTag.optional(),
});
export type FlowTag = z.infer<typeof FlowTag>;

/** One step of a run (or one branch of a map step). */
export const StepJob = z.object({
  run_id: z.string().min(1),
  // The batch id rides along so a stage can keep its batch's counts without looking it up.
  batch_id: z.string().min(1).optional(),
  pipeline: z.string().min(1),
  version: z.number().int().positive(),
  step: z.string().min(1),
  /**
   * A branch of a map step: its place in the list, the key its stage is named by, and how many
   * branches the step has (a branch's share of the map's output bound). The item itself is not in
   * the job: it is read by index from the run's stored list (`from: 'run'`, a list evaluated at run
   * time) or from the definition's constant list (`from: 'definition'`). `item` is read from jobs
   * added before lists were stored once per run.
   */
  branch: z
    .object({
      key: z.string().min(1),
      index: z.number().int().nonnegative(),
      count: z.number().int().positive().optional(),
      from: z.enum(['run', 'definition']).optional(),
      item: z.unknown().optional(),
    })
    .optional(),
  remote_task: RemoteTaskRef.optional(),
  /** When the stage began waiting on an open breaker (ms), so the wait has a budget. */
  breaker_wait_since: z.number().optional(),
  /** An agent step's model turn after its first (the first is the step's own job): see engine/agent-jobs.ts. */
  agent_turn: z.number().int().min(2).optional(),
  /** One tool call of an agent step: the `index`-th call its model asked for in turn `turn`. */
  agent_call: z.object({ turn: z.number().int().positive(), index: z.number().int().nonnegative() }).optional(),
  /** The stage was started by an earlier run of this job, which parked it (a wait): it goes on, not again. */
  resumed: z.boolean().optional(),
  /** An agent turn's reserved place in its model's rate limit (Redis ms), kept while the turn waits for it in the delayed set. */
  model_slot: z.number().optional(),
  /** How long an agent turn has waited on its model's 429s so far (ms), so those waits have a budget. */
  rate_limited_ms: z.number().optional(),
  /** When an agent's pipeline call, or a child pipeline step, began waiting on its child run (ms). */
  child_wait_since: z.number().optional(),
  /** Its run's flow control (absent in jobs added before there was any: served as a batch's, keyed `-`). */
  flow: FlowTag.optional(),
  /**
   * A job that lost its worker too often runs alone (services/workers/src/engine/solo-jobs.ts):
   * its stall count when its last solo run began, and the deaths while it ran alone.
   */
  solo: z.object({ stalls: z.number().int().nonnegative(), deaths: z.number().int().nonnegative() }).optional(),
  /**
   * What the stage reads, carried from the step that added the job (engine/advance.ts): the run's
   * request and the outputs of the steps it needs, as its start would read them. A first attempt
   * that has them starts without a round trip; its start is recorded once it lasts, or with its
   * completion (services/workers/src/stage-runner.ts). Bounded by CARRIED_BYTES_MAX.
   */
  carried: z.object({ request: z.unknown(), inputs: z.record(z.string(), z.unknown()) }).optional(),
  /** A fallback's job: the step it stands in for, and how that step failed (read as `error`). */
  fallback_for: z.object({ step: z.string().max(60), code: z.string().max(200), message: z.string().max(2000) }).optional(),
});
export type StepJob = z.infer<typeof StepJob>;

/** Expands a batch into runs; `pipeline` is absent only in jobs queued before pipelines were data (story). */
export const DispatchJob = z.object({ batch_id: z.string().min(1), pipeline: PipelineRef.optional() });
export type DispatchJob = z.infer<typeof DispatchJob>;

/**
 * One tick of a schedule, added by BullMQ's job scheduler of that name (job id
 * `repeat:<schedule>:<tick ms>`): a worker starts the schedule's run for that tick, under a run id
 * made from the schedule and the tick, so a tick processed twice starts one run.
 */
export const ScheduleTickJob = z.object({ schedule: z.string().min(1).max(64) });
export type ScheduleTickJob = z.infer<typeof ScheduleTickJob>;

/**
 * Retry options of schedule ticks. A tick's work is idempotent (its run id is fixed), so a retry
 * after a crash is safe. Done ticks are kept a day (at most 2,000) for a look in Bull Board.
 */
export const SCHEDULE_TICK_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 24 * 3600, count: 2000 },
  removeOnFail: { age: 24 * 3600, count: 1000 },
} as const satisfies JobsOptions;

/**
 * A webhook owed: the end of a run (`run:<id>`) or of a batch (`batch:<id>`) POSTed to `url`,
 * signed. Its id is `notify.<kind>.<id>`, so an end is delivered once however often it is owed.
 */
export const NotifyDeliveryJob = z.object({
  target: z.string().regex(/^(run|batch):[\w-]{1,80}$/),
  url: z.string().min(1).max(2048),
});
export type NotifyDeliveryJob = z.infer<typeof NotifyDeliveryJob>;

/** The id of the delivery job of `target` (`run:<id>` or `batch:<id>`). */
export const notifyJobId = (target: string) => `notify.${target.replace(':', '.')}`;

/**
 * Retry options of webhook deliveries: a network error or a non-2xx answer is retried with
 * exponential backoff (1 s, 2 s, 4 s… about 8.5 min over 10 attempts). Delivered jobs are kept a
 * week (at most 10,000) so that an end owed again finds its job and adds none.
 */
export const NOTIFY_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
} as const satisfies JobsOptions;

/**
 * Retry options of step jobs. The tool client already retries a call a few times; these attempts
 * cover what it cannot: a worker that crashed, a service down for longer than its retries.
 * `attempts` is a ceiling: the worker's own budget (STAGE_MAX_ATTEMPTS, or a step's `retry`)
 * ends a stage within it, so the budget can change without re-enqueueing jobs. A stage that
 * meets an open breaker is delayed, not failed, and spends no attempt.
 */
export const MAX_STAGE_ATTEMPTS = 10;
export const STAGE_JOB_OPTIONS = {
  attempts: MAX_STAGE_ATTEMPTS,
  backoff: { type: 'exponential', delay: 1000 },
  // The run store keeps the truth about runs, stage records included: a completed job is removed
  // at once. A job added again under the same id then finds its stage done in the run and does
  // nothing (step-processor: a stored output is answered, an ended run is not worked on). Failed
  // jobs stay a while for a look in Bull Board, at most a thousand per queue.
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600, count: 1000 },
} as const satisfies JobsOptions;

export const JOB_CATALOG = {
  // Its queue is the step's: `tool-<service>` or `kind-<kind>` (see CompiledStep.queue).
  'pipeline.step': { queue: 'per step', payload: StepJob, options: STAGE_JOB_OPTIONS },
  'schedule.tick': { queue: QUEUES.scheduleTick, payload: ScheduleTickJob, options: SCHEDULE_TICK_JOB_OPTIONS },
  'notify.deliver': { queue: QUEUES.notifyDelivery, payload: NotifyDeliveryJob, options: NOTIFY_JOB_OPTIONS },
  'runs.dispatch': { queue: QUEUES.dispatch, payload: DispatchJob, options: { attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: true, removeOnFail: { age: 24 * 3600, count: 1000 } } },
} as const satisfies Record<string, { queue: string; payload: z.ZodType; options: JobsOptions }>;
export type JobName = keyof typeof JOB_CATALOG;

/** BullMQ refuses ':' in custom job ids, and ids must be stable so that adding twice adds once. */
export const jobId = (runId: string, stage: string) => `${runId}.${stage}`;

/** The id of the job that expands batch `batchId` into runs. */
export const dispatchJobId = (batchId: string) => `dispatch.${batchId}`;
