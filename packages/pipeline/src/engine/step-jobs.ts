/**
 * Step jobs: one BullMQ job per step of a run (per branch, for a map step), on the queue of the
 * step's tool service or step kind. Job ids come from the run and the stage, so adding a step
 * twice (a retried job advancing its run again) adds it once.
 */
import { FlowProducer, Queue, type FlowJob, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullmqTelemetry } from '@switchyard/telemetry';
import { BULLMQ_EVENTS_MAXLEN, jobId, MAX_STAGE_ATTEMPTS, STAGE_JOB_OPTIONS, type FlowTag, type StepJob } from '../catalog.js';
import type { CompiledPipeline, CompiledStep } from '../definition/compile.js';
import { TurnBatch } from '../store/turn-batch.js';
import { FairShares } from '../flow/fair-shares.js';

export const STEP_JOB_NAME = 'pipeline.step';


/** The stage a step job records: the step, or `step.key` for a branch. */
export const stageOf = (step: string, branchKey?: string) => (branchKey === undefined ? step : `${step}.${branchKey}`);

const optionsOfStep = new WeakMap<CompiledStep, Readonly<JobsOptions>>();

/** A step's retry settings over the catalog's defaults (made once per compiled step; not to be changed). */
export function stepJobOptions(step: CompiledStep): Readonly<JobsOptions> {
  let options = optionsOfStep.get(step);
  if (!options) {
    const retry = step.definition.retry;
    options = { ...STAGE_JOB_OPTIONS, attempts: retry?.attempts ?? MAX_STAGE_ATTEMPTS, backoff: { type: 'exponential', delay: retry?.backoff ?? STAGE_JOB_OPTIONS.backoff.delay } };
    optionsOfStep.set(step, options);
  }
  return options;
}

const BRANCH_KEY = /^[A-Za-z0-9_-]{1,60}$/;

/**
 * Branch keys of a map over `items`: the items themselves when they are distinct plain strings
 * (so a map over section names gives `write.climax`), else their indexes.
 */
export function branchKeys(items: readonly unknown[]): string[] {
  const named = items.every((item) => typeof item === 'string' && BRANCH_KEY.test(item)) && new Set(items).size === items.length;
  return items.map((item, i) => (named ? (item as string) : String(i)));
}

export interface StepJobSpec {
  queue: string;
  data: StepJob;
  opts: JobsOptions;
  /** Jobs this one waits for, as a BullMQ flow: it is released when all of them have completed. */
  children?: readonly StepJobSpec[];
}

/** The job of `step` (or of one branch of it) in run `runId`. */
export function stepJob(options: { pipeline: CompiledPipeline; step: CompiledStep; runId: string; batchId?: string | undefined; flow?: FlowTag | undefined; branch?: StepJob['branch']; carried?: StepJob['carried'] }): StepJobSpec {
  const { pipeline, step, runId, branch } = options;
  // Filled field by field: optional fields are left out, not set to undefined (the job's JSON is the same).
  const data: StepJob = { run_id: runId, pipeline: pipeline.name, version: pipeline.version, step: step.name };
  if (options.batchId) data.batch_id = options.batchId;
  if (options.flow) data.flow = options.flow;
  if (branch) data.branch = branch;
  if (options.carried) data.carried = options.carried;
  return { queue: step.queue, data, opts: { ...stepJobOptions(step), jobId: jobId(runId, stageOf(step.name, branch?.key)) } };
}

/** The group of a turn's adds that go as flows (a parent with its children), not to one queue. */
const FLOWS = Symbol('flows');

function flowOf(spec: StepJobSpec): FlowJob {
  return {
    name: STEP_JOB_NAME,
    queueName: spec.queue,
    data: spec.data,
    opts: spec.opts,
    // A child that fails for good fails its parent (which never runs), as its run has failed or
    // ended; unless it says it only drops out of its parent's wait (an agent's tool calls).
    ...(spec.children ? { children: spec.children.map((child) => ({ ...flowOf(child), opts: child.opts.removeDependencyOnFailure ? child.opts : { ...child.opts, failParentOnFailure: true } })) } : {}),
  };
}

interface PendingAdd {
  jobs: readonly StepJobSpec[];
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Queues by name, opened as needed, on one connection. Jobs added in one turn of the event loop
 * (under load, several steps of several runs end in the same turn) go to Redis together: one
 * pipeline per queue, one write, where each add was a round trip of its own.
 */
export class StepQueues {
  readonly #connection: Redis;
  readonly #prefix: string;
  readonly #queues = new Map<string, Queue>();
  readonly #onError: (error: Error) => void;
  readonly #turn = new TurnBatch<PendingAdd>((pending) => this.#placeAll(pending));
  readonly #fair: FairShares;
  readonly #placing = new Set<Promise<void>>();
  #flowProducer: FlowProducer | undefined;

  constructor(options: { connection: Redis; prefix: string; onError?: (error: Error) => void }) {
    this.#connection = options.connection;
    this.#prefix = options.prefix;
    this.#onError = options.onError ?? (() => undefined);
    this.#fair = new FairShares({ redis: options.connection, prefix: options.prefix });
  }

  /** The fair shares that place this process's jobs (and say where one waits). */
  get fair(): FairShares {
    return this.#fair;
  }

  queue(name: string): Queue {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.#connection, prefix: this.#prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } }, ...bullmqTelemetry() });
      queue.on('error', this.#onError);
      this.#queues.set(name, queue);
    }
    return queue;
  }

  /** Adds jobs with the others added in this turn; settles once all of them are in Redis. */
  add(jobs: readonly StepJobSpec[]): Promise<void> {
    if (jobs.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.#turn.push({ jobs, resolve, reject }));
  }

  /**
   * Gives every job of the turn its BullMQ priority (its run's class and fair share, one script
   * for all of them), then sends them. A job never goes without one: BullMQ serves jobs of
   * priority 0 before every prioritized job.
   */
  #placeAll(pending: readonly PendingAdd[]): void {
    const placed = this.#place(pending);
    this.#placing.add(placed);
    void placed.finally(() => this.#placing.delete(placed));
  }

  async #place(pending: readonly PendingAdd[]): Promise<void> {
    const specs: StepJobSpec[] = [];
    const collect = (spec: StepJobSpec) => {
      specs.push(spec);
      spec.children?.forEach(collect);
    };
    for (const adder of pending) adder.jobs.forEach(collect);
    await this.#fair.priorities(specs.map((spec) => ({ queue: spec.queue, flow: spec.data.flow }))).then(
      (priorities) => {
        // Options are shared by a step's jobs (stepJobOptions): each placed job gets a copy.
        specs.forEach((spec, i) => (spec.opts = { ...spec.opts, priority: priorities[i] }));
        this.#sendAll(pending);
      },
      (error: unknown) => {
        for (const adder of pending) adder.reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  #sendAll(pending: readonly PendingAdd[]): void {
    // Plain jobs by queue, and flows (whose jobs span queues) as one group.
    const groups = new Map<string | typeof FLOWS, { specs: StepJobSpec[]; adders: PendingAdd[] }>();
    for (const adder of pending) {
      for (const job of adder.jobs) {
        const key = job.children ? FLOWS : job.queue;
        let entry = groups.get(key);
        if (!entry) groups.set(key, (entry = { specs: [], adders: [] }));
        entry.specs.push(job);
        if (entry.adders.at(-1) !== adder) entry.adders.push(adder);
      }
    }
    // An add settles when every group it added to has answered; one failed group fails it.
    const waits = new Map<PendingAdd, Promise<unknown>[]>(pending.map((adder) => [adder, []]));
    for (const [key, { specs, adders }] of groups) {
      const sent = this.#send(key, specs);
      for (const adder of adders) waits.get(adder)?.push(sent);
    }
    for (const [adder, sent] of waits) {
      Promise.all(sent).then(
        () => adder.resolve(),
        (error: unknown) => adder.reject(error instanceof Error ? error : new Error(String(error))),
      );
    }
  }

  #send(key: string | typeof FLOWS, specs: readonly StepJobSpec[]): Promise<unknown> {
    try {
      if (key === FLOWS) return this.#flows().addBulk(specs.map(flowOf));
      const queue = this.queue(key);
      const [only] = specs;
      return specs.length === 1 && only ? queue.add(STEP_JOB_NAME, only.data, only.opts) : queue.addBulk(specs.map((s) => ({ name: STEP_JOB_NAME, data: s.data, opts: s.opts })));
    } catch (error) {
      // A queue that cannot be opened fails the adds that named it, not the turn's others.
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #flows(): FlowProducer {
    if (!this.#flowProducer) {
      this.#flowProducer = new FlowProducer({ connection: this.#connection, prefix: this.#prefix, ...bullmqTelemetry() });
      this.#flowProducer.on('error', this.#onError);
    }
    return this.#flowProducer;
  }

  /** Whether any of `specs`' jobs exists in its queue, in whatever state (specs' children are not looked at). */
  async anyExists(specs: readonly StepJobSpec[]): Promise<boolean> {
    // One EXISTS per job: on a Redis Cluster the queues' keys are in different slots.
    const found = await Promise.all(specs.map((spec) => this.#connection.exists(this.queue(spec.queue).toKey(spec.opts.jobId as string))));
    return found.some((count) => count > 0);
  }

  /** Sends the adds of this turn still waiting, then closes the queues. */
  async close(): Promise<void> {
    this.#turn.drain();
    await Promise.all([...this.#placing]);
    await Promise.all([...this.#queues.values(), ...(this.#flowProducer ? [this.#flowProducer] : [])].map((q) => q.close()));
  }
}
