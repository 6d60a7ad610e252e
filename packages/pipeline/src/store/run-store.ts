/**
 * Runs as Redis keeps them: a hash per run (status, request, result, error, and each stage's
 * record as flat fields, see stage-records.ts), a hash of the finished stages' outputs (until the
 * run completes), and a stream of its events. Every process reads
 * and writes runs through this one store, so the orchestrator, any number of workers and the MCP
 * bridge agree on what a run is doing.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { assertClusterPrefix, isCluster } from '@switchyard/redis';
import { LIVE_STATUSES, TERMINAL_STATUSES, type PageMarks, type RunError, type RunEventData, type RunEventName, type RunStatus, type RunSummary, type StageStatus, type StageView } from '@switchyard/contracts';
import { runScripts, type RunScripts } from './stage-scripts.js';
import { decodeStageStart, type StageStart } from './stage-start.js';
import { EventAppends } from './event-appends.js';
import { StageWrites } from './stage-writes.js';
import { readStageView, stageField, stageViewFields } from './stage-records.js';
import { flowOf, runRecordOf, type RunRecord } from './run-record.js';
import type { FlowTag } from '../catalog.js';
import { runKeys, type RunKeys } from './keys.js';
import type { StreamEvent } from './events.js';
import { readArchive, readRunFields, readRunOutputs } from './run-archive.js';
import { countsOf, type RecordedStage } from './step-states.js';
import { runLimitsOf, type RunLimits } from './limits.js';
import { listRunPage, readSummaries, resultTitle, type RunListQuery } from './run-listing.js';
import { newRunId, writeAdmittedRuns, type NewRun } from './new-run.js';

export { newRunId } from './new-run.js';
export type { NewRun } from './new-run.js';
export type { StageStart } from './stage-start.js';
import { indexAgain, listActiveRuns, pruneIndexes, readActiveRuns, readStatesWithFlow, readStatuses, type ActiveRun, type RunIndexDeps, type RunState } from './run-index.js';
import { RunSettling, type RunObserver, type TransitionReply } from './run-settling.js';
import { LiveRuns } from './live-runs.js';

export type { ActiveRun } from './run-index.js';
export type { RunObserver } from './run-settling.js';
export type { RunRecord } from './run-record.js';

export interface RunStoreOptions {
  redis: Redis;
  /** Key prefix shared with the queues (BullMQ's `prefix`). */
  prefix: string;
  /** Seconds a finished run stays readable (default 7 days). */
  retentionSeconds?: number;
  /** Told of the runs this store creates and ends, e.g. to count them (default: nobody). */
  observer?: RunObserver | undefined;
  /** What a run may hold (inputs, map lists, outputs) and a listing page may carry (default DEFAULT_RUN_LIMITS). */
  limits?: Partial<RunLimits> | undefined;
  /**
   * Called when a status change made a webhook owed (a run or batch with `notify` ended), so that
   * its delivery job is added at once (default: nobody; the owed list is swept anyway, see notify/notifier.ts).
   */
  onNotifyOwed?: (() => void) | undefined;
}

const EVENT_STREAM_MAXLEN = '20000';
/** A map branch's item in the run's items hash (see EXPAND_SCRIPT). */
const itemField = (step: string, index: number) => `${step}.${index}`;
/** The least TTL a run is written with until it is listed (createRuns): its retention, or this when that is shorter. */
const UNLISTED_RUN_MIN_TTL_S = 3600;
const now = () => new Date().toISOString();

export class RunStore {
  readonly redis: Redis;
  readonly keys: RunKeys;
  readonly prefix: string;
  /** Seconds a finished run stays readable. */
  readonly retentionSeconds: number;
  /** What a run may hold and a listing page may carry, for every process that works with this store. */
  readonly limits: Readonly<RunLimits>;
  /** The runs each API key holds, bounded by `limits.liveRunsPerKey` (live-runs.ts). */
  readonly liveRuns: LiveRuns;
  readonly #scripts: RunScripts;
  readonly #stageWrites: StageWrites;
  readonly #appends: EventAppends;
  readonly #observer: RunObserver | undefined;
  readonly #settling: RunSettling;
  readonly #index: RunIndexDeps;
  /** Who numbers this store's appends and starts: unique per store, so per process. */
  readonly #writer = randomUUID().replace(/-/g, '').slice(0, 12);
  #seq = 0;
  /** On a Redis Cluster a run's keys and BullMQ's are on different connections (see completeStage). */
  readonly #cluster: boolean;

  constructor(options: RunStoreOptions) {
    this.#cluster = isCluster(options.redis);
    assertClusterPrefix(options.prefix, this.#cluster);
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.keys = runKeys(options.prefix);
    this.retentionSeconds = options.retentionSeconds ?? 7 * 24 * 3600;
    this.limits = runLimitsOf(options.limits);
    this.#observer = options.observer;
    this.#index = { redis: this.redis, keys: this.keys };
    this.#scripts = runScripts(options.redis);
    this.#settling = new RunSettling({ redis: this.redis, keys: this.keys, scripts: this.#scripts, retentionSeconds: this.retentionSeconds, observer: options.observer, onNotifyOwed: options.onNotifyOwed });
    this.liveRuns = new LiveRuns({ redis: this.redis, keys: this.keys, getStatuses: (ids) => this.getStatuses(ids), ensureIndexed: (id) => this.ensureIndexed(id) });
    this.#stageWrites = new StageWrites({ call: this.#scripts.stageWrites, maxlen: EVENT_STREAM_MAXLEN, now, cluster: this.#cluster });
    this.#appends = new EventAppends({ redis: options.redis, writer: this.#writer, maxlen: EVENT_STREAM_MAXLEN, cluster: this.#cluster });
  }

  /**
   * Lists an existing run in the indexes again (ZADD NX, by its creation time): for a writer that
   * may have died between writing the run's hash and its index entries (createRuns).
   */
  ensureIndexed(runId: string): Promise<void> {
    return indexAgain(this.#index, runId);
  }

  /**
   * Records new runs as `queued`, all in one round trip; returns their ids in order. Runs held by
   * an API key (`owner`) are admitted first under its bound of live runs (TooManyRunsError past
   * it, nothing written).
   */
  async createRuns(runs: readonly NewRun[]): Promise<string[]> {
    const withIds = runs.map((run) => (run.id ? run : { ...run, id: newRunId() }));
    await this.admitRuns(withIds);
    return this.#writeRuns(runs, withIds);
  }

  /**
   * Records a new run as createRun does when `check`'s hash field (on the shared slot) holds
   * `expect`, read in the round trip that admits the run: a pipeline's latest version, which a
   * start knows from before and another process may have changed since. Else writes nothing and
   * answers what it read; the run stays admitted (admitting it again changes nothing; releasing it
   * is the caller's).
   */
  async createRunChecked(run: NewRun, check: { key: string; field: string; expect: string }): Promise<{ id: string } | { found: string | null }> {
    const id = run.id ?? newRunId();
    const found = run.owner ? await this.liveRuns.admitReading(run.owner, [id], this.limits.liveRunsPerKey, check) : await this.redis.hget(check.key, check.field);
    if (found !== check.expect) return { found };
    await this.#writeRuns([run], [{ ...run, id }]);
    return { id };
  }

  /** Writes admitted runs (`withIds`: `runs` with their ids): see writeAdmittedRuns. */
  async #writeRuns(runs: readonly NewRun[], withIds: readonly NewRun[]): Promise<string[]> {
    const ids = await writeAdmittedRuns({ redis: this.redis, keys: this.keys, unlistedTtlS: Math.max(this.retentionSeconds, UNLISTED_RUN_MIN_TTL_S) }, withIds);
    if (this.#observer?.created) {
      const counts = new Map<string, number>();
      for (const run of runs) counts.set(run.kind, (counts.get(run.kind) ?? 0) + 1);
      for (const [name, count] of counts) this.#observer.created({ pipeline: name, count });
    }
    return ids;
  }

  /** Admits the runs (with their ids) each key holds (live-runs.ts), all of a key's or none: TooManyRunsError past its bound. Admitting again changes nothing. */
  admitRuns(runs: readonly NewRun[]): Promise<void> {
    return this.liveRuns.admitOwned(runs, this.limits.liveRunsPerKey);
  }

  async createRun(run: NewRun): Promise<string> {
    const [id] = await this.createRuns([run]);
    return id as string;
  }

  /** The run; with `raw`, its request and result as the JSON text they are stored as (see runRecordOf). */
  async getRun(runId: string, options: { raw?: boolean } = {}): Promise<RunRecord | null> {
    // A compacted run's fields are in its archive (run-archive.ts); the hash's own win.
    return runRecordOf(await readRunFields(this.redis, this.keys, runId), options);
  }

  /**
   * A page of runs, newest first, optionally of one status and of one pipeline, as summaries (with
   * `fields`, more of each): see run-listing.ts. Looks at most at the newest 10,000 runs; ids whose
   * run has passed its retention are dropped from the index as they are met.
   */
  listRuns(query: RunListQuery): Promise<{ runs: RunSummary[] } & PageMarks> {
    return listRunPage(this, query);
  }

  /** Runs as listings show them (never their input or result), by id; null for a run that is gone. */
  getSummaries(ids: readonly string[]): Promise<(RunSummary | null)[]> {
    return readSummaries(this, ids);
  }

  /** A page of the runs not yet ended created before `createdBefore` (ms), oldest first (run-index.ts). */
  listActiveRuns(options: { createdBefore: number; offset: number; count: number }): Promise<ActiveRun[]> {
    return listActiveRuns(this.#index, options);
  }

  /** What the reconciler needs of runs, read afresh (run-index.ts). */
  getActiveRuns(ids: readonly string[]): Promise<ActiveRun[]> {
    return readActiveRuns(this.#index, ids);
  }

  /** Drops expired runs and batches from their indexes, in bounded steps (run-index.ts). */
  pruneRunIndex(options: { createdBefore: number; maxIds: number }): Promise<number> {
    return pruneIndexes(this.#index, options);
  }

  /** Drops runs that no longer exist (their retention passed) from the active set. */
  async forgetActiveRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.redis.zrem(this.keys.activeRuns, ...runIds);
  }

  async getStatus(runId: string): Promise<RunStatus | null> {
    return (await this.redis.hget(this.keys.run(runId), 'status')) as RunStatus | null;
  }

  /** Runs that ended since `since` (ms), listed for compaction (run-settle.ts), oldest first, at most `limit`. */
  runsEndedSince(since: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.endedRuns, since, '+inf', 'LIMIT', 0, limit);
  }

  /** Statuses of many runs in one round trip (null for unknown ids). */
  getStatuses(runIds: readonly string[]): Promise<(RunStatus | null)[]> {
    return readStatuses(this.#index, runIds);
  }

  /** Each run's status and flow control; with `withRequest`, its request too (run-index.ts). */
  getStatesWithFlow(runIds: readonly string[], options: { withRequest?: boolean } = {}): Promise<RunState[]> {
    return readStatesWithFlow(this.#index, runIds, options);
  }

  /** A run's flow control, as recorded when it was created. */
  async getFlow(runId: string): Promise<FlowTag | undefined> {
    return flowOf(await this.redis.hget(this.keys.run(runId), 'flow'));
  }

  async getBatchId(runId: string): Promise<string | null> {
    return (await this.redis.hget(this.keys.run(runId), 'batch_id')) || null;
  }

  /**
   * Moves a run to `to` when its status is one of `from`. Returns whether it moved and the status
   * it had. Ending a run writes its `done` event and starts its retention clock in the same step.
   */
  async transition(options: { runId: string; from: readonly RunStatus[]; to: RunStatus; result?: unknown; error?: RunError; batchId?: string | null }): Promise<{ moved: boolean; previous: RunStatus | null }> {
    const { runId, to } = options;
    const terminal = TERMINAL_STATUSES.includes(to);
    const batchId = options.batchId === undefined ? await this.getBatchId(runId) : options.batchId;
    const keys = [this.keys.run(runId), this.keys.events(runId), this.keys.outputs(runId), this.keys.items(runId)];
    const reply = (await this.#scripts.transition(
      keys.length,
      ...keys,
      to,
      options.from.join(','),
      now(),
      options.error ? JSON.stringify(options.error) : '',
      options.result !== undefined ? JSON.stringify(options.result) : '',
      terminal ? '1' : '0',
      String(this.retentionSeconds),
      resultTitle(options.result) ?? '',
    )) as TransitionReply;
    return this.#settling.moved({ reply, runId, batchId, to });
  }

  /** Finishes the shared slot's step for ended runs still in the active index (run-settling.ts). */
  settleEndedRuns(runs: readonly { id: string; status: RunStatus | null; batchId: string | null }[]): Promise<void> {
    return this.#settling.settleEndedRuns(runs);
  }

  /**
   * Completes a run's last stage and ends the run in one script call on the run's keys (then the
   * shared slot's step, as for any status change): a completed run's result holds the output; a
   * failed one (its output could not be computed) keeps it beside the others.
   */
  async finishStage(options: { runId: string; stage: string; batchId: string | null; output: unknown; end: { to: 'completed'; result: unknown } | { to: 'failed'; error: RunError } }): Promise<{ moved: boolean; previous: RunStatus | null }> {
    const { runId, end } = options;
    const keys = [this.keys.run(runId), this.keys.outputs(runId), this.keys.events(runId), this.keys.items(runId)];
    const args = {
      to: end.to,
      // As finishRun: the last stage's completion ends the run whatever it was waiting for.
      from: LIVE_STATUSES.join(','),
      error: end.to === 'failed' ? JSON.stringify(end.error) : '',
      result: end.to === 'completed' ? JSON.stringify(end.result ?? null) : '',
      retentionSeconds: String(this.retentionSeconds),
      keep: end.to === 'completed' ? '' : JSON.stringify(options.output ?? null),
      title: end.to === 'completed' ? (resultTitle(end.result) ?? '') : '',
    };
    const reply = (await this.#stageWrites.submit({ kind: 'finish', keys, stage: options.stage, end: args }).reply) as TransitionReply;
    return this.#settling.moved({ reply, runId, batchId: options.batchId, to: end.to });
  }

  /**
   * Starts a stage in one step: unless the run has ended or the stage's output is already stored,
   * moves a queued run to running, counts the attempt and announces it (a first attempt with
   * `quiet` is not announced: its worker does, should it last). Returns the outputs of
   * the `inputs` stages either way, so the stage needs no further reads. Starts and completions
   * made in the same turn of the event loop share one round trip. `startedAt`: when a first
   * attempt whose inputs came with its job began, its start being written later (runStage).
   */
  async startStage(options: { runId: string; stage: string; batchId?: string | null; inputs?: readonly string[]; withRequest?: boolean; peek?: boolean; quiet?: boolean; needsDone?: boolean; item?: { step: string; index: number }; startedAt?: string }): Promise<StageStart> {
    const { runId } = options;
    const inputs = options.inputs ?? [];
    const keys = [this.keys.run(runId), this.keys.outputs(runId), this.keys.events(runId), ...(options.item ? [this.keys.items(runId)] : [])];
    const flags = `${options.withRequest ? 'r' : ''}${options.peek ? 'p' : ''}${options.quiet ? 'q' : ''}${options.needsDone ? 'n' : ''}`;
    const item = options.item ? itemField(options.item.step, options.item.index) : undefined;
    const reply = (await this.#stageWrites.submit({ kind: 'start', keys, stage: options.stage, inputs, flags, ...(item ? { item } : {}), ...(options.startedAt ? { startedAt: options.startedAt } : {}), id: `${this.#writer}.${(this.#seq += 1)}` }).reply) as string[];
    const { start, moved } = decodeStageStart(reply, { inputs, withRequest: options.withRequest === true, withItem: item !== undefined });
    // This start moved the run from queued: its batch's counts follow, in the shared slot. Should
    // that step be lost, the batch counts the run queued until it ends (no drift).
    if (moved && options.batchId) await this.#settling.settle({ runId, batchId: options.batchId, to: 'running' });
    return start;
  }

  /** Records a stage skipped (its condition was false): it counts as done, with no output. */
  skipStage(options: { runId: string; stage: string; batchId?: string | null; watch?: readonly string[] }): Promise<RecordedStage> {
    const { runId } = options;
    const keys = [this.keys.run(runId), this.keys.outputs(runId), this.keys.events(runId)];
    return this.#stageWrites.submit({ kind: 'skip', keys, stage: options.stage, watch: options.watch }).reply.then((reply) => this.#recorded(reply, runId, options.batchId));
  }

  /**
   * A completion's or skip's answer; one that moved its run from queued (a first stage started from
   * its job alone) has the batch's counts follow, as a start's move does. Should that step be
   * lost, the batch counts the run queued until it ends (no drift).
   */
  async #recorded(reply: unknown, runId: string, batchId: string | null | undefined): Promise<RecordedStage> {
    const recorded = countsOf(reply);
    if (recorded.moved && batchId) await this.#settling.settle({ runId, batchId, to: 'running' });
    return recorded;
  }

  /** Marks a stage's job as refused because its run had ended: compaction removes such jobs. */
  async markRefused(runId: string, stage: string): Promise<void> {
    await this.#scripts.markRefused(this.keys.run(runId), `${stage}.refused`);
  }

  /**
   * Records a map step's branches (once; a second call answers the first call's) and, for a list
   * evaluated at run time, its items as JSON texts, stored once for the run where each branch
   * reads its own (see EXPAND_SCRIPT). Null when the run is gone.
   */
  async expandStep(options: { runId: string; step: string; branches: readonly string[]; items?: readonly string[] }): Promise<string[] | null> {
    const { runId } = options;
    const reply = await this.#scripts.expand(this.keys.run(runId), this.keys.items(runId), options.step, JSON.stringify(options.branches), ...(options.items ?? []));
    return typeof reply === 'string' ? (JSON.parse(reply) as string[]) : null;
  }

  /**
   * The `done` event of `runId` as readers should see it: the event itself holds the status (and
   * error), and the result, kept once in the run, is attached here.
   */
  async withRunResult(runId: string, done: StreamEvent): Promise<StreamEvent> {
    const result = (await this.redis.hget(this.keys.run(runId), 'result')) ?? (await readArchive(this.redis, this.keys, runId))?.fields.result;
    if (!result) return done;
    // Spliced in as the text it is stored as: parsing and writing it again would cost its size twice per reader.
    if (done.data.endsWith('}') && done.data.length > 2) return { ...done, data: `${done.data.slice(0, -1)},"result":${result}}` };
    return { ...done, data: JSON.stringify({ ...(JSON.parse(done.data) as object), result: JSON.parse(result) as unknown }) };
  }

  /**
   * Stores a stage's output, marks it completed, and appends its `stage` event (with the run's progress).
   * `sent` settles once the write is on the connection, ahead of any command issued after it on
   * the same connection; `recorded` once Redis has applied it.
   */
  completeStage(options: { runId: string; stage: string; batchId?: string | null; output: unknown; watch?: readonly string[]; startedAt?: string | undefined }): { sent: Promise<void>; recorded: Promise<RecordedStage> } {
    const { runId } = options;
    const keys = [this.keys.run(runId), this.keys.outputs(runId), this.keys.events(runId)];
    // null is an output too; only a skip leaves none.
    const { sent, reply } = this.#stageWrites.submit({ kind: 'complete', keys, stage: options.stage, output: JSON.stringify(options.output ?? null), watch: options.watch, ...(options.startedAt ? { startedAt: options.startedAt } : {}) });
    // On a cluster the run's slot and BullMQ's may be on different masters, so one connection's
    // order no longer puts this record before the job's completion: it is only sent once applied.
    const recorded = reply.then((answer) => this.#recorded(answer, runId, options.batchId));
    if (this.#cluster) return { sent: reply.then(() => undefined), recorded };
    return { sent, recorded };
  }

  /**
   * Records a stage's status and announces it with a `stage` event (unless `quiet`: the run has
   * ended). Only the worker holding that stage's job writes its record.
   */
  async setStageStatus(options: { runId: string; stage: string; status: StageStatus; error?: RunError | null; startAttempt?: boolean; quiet?: boolean }): Promise<StageView> {
    const { runId, stage } = options;
    const at = now();
    const fields = ['attempts', 'started_at', 'error'] as const;
    const values = await this.redis.hmget(this.keys.run(runId), ...fields.map((field) => stageField(stage, field)));
    const current = readStageView(Object.fromEntries(fields.map((field, i) => [stageField(stage, field), values[i]])), stage);
    const view: StageView = {
      name: stage,
      status: options.status,
      attempts: current.attempts + (options.startAttempt ? 1 : 0),
      started_at: options.startAttempt ? (current.started_at ?? at) : current.started_at,
      finished_at: ['completed', 'skipped', 'failed', 'cancelled'].includes(options.status) ? at : null,
      error: options.error === undefined ? current.error : options.error,
    };
    await this.redis.hset(this.keys.run(runId), stageViewFields(view));
    if (!options.quiet) await this.appendEvent(runId, 'stage', { stage, status: view.status, attempt: view.attempts, ...(view.error && options.status !== 'completed' ? { error: view.error } : {}) });
    return view;
  }

  async getOutputs(runId: string): Promise<Record<string, unknown>> {
    const hash = await readRunOutputs(this.redis, this.keys, runId);
    return Object.fromEntries(Object.entries(hash).map(([stage, value]) => [stage, JSON.parse(value) as unknown]));
  }

  /**
   * Appends an event to the run's stream, once even if the command is resent after a reconnect
   * (see event-appends.ts: appends of one turn of the event loop share a call); its stream id is
   * the event id clients resume from. Resolves with
   * that id, or null when the run no longer exists or the append had been applied already.
   */
  async appendEvent<E extends RunEventName>(runId: string, type: E, data: RunEventData[E]): Promise<string | null> {
    return this.#appends.submit({ run: this.keys.run(runId), events: this.keys.events(runId), seq: (this.#seq += 1), type, data: JSON.stringify(data) });
  }

  /** Tells every worker process to abort the run's calls in progress. */
  async publishCancel(runId: string): Promise<void> {
    await this.redis.publish(this.keys.cancelChannel, runId);
  }
}
