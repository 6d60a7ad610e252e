/**
 * Aborting a run's calls in progress on this worker process. The orchestrator publishes a run id
 * on the cancel channel; every worker process aborts the signals it handed out for that run. A
 * once-a-second check of the runs in flight covers a message missed while reconnecting.
 */
import type { Redis } from 'ioredis';
import { TERMINAL_STATUSES } from '@switchyard/contracts';
import type { RunStore } from '@switchyard/pipeline';

export interface TrackedRun {
  signal: AbortSignal;
  release(): void;
}

/** Runs remembered as ended (most recent first out), so that a stage starting without a start record can look. */
const ENDED_RUNS_KEPT = 10_000;

/**
 * How far before a job was added heardAllSince is asked about (ms): the adder read its run live a
 * moment before adding (a cancel in between is told before the add), and its clock may be ahead
 * of this process's by up to this much.
 */
export const CANCEL_HEARD_MARGIN_MS = 1_000;

export class RunAborts {
  readonly #store: RunStore;
  readonly #subscriber: Redis;
  readonly #byRun = new Map<string, Set<AbortController>>();
  /** Run id → when it was heard ended (ms), oldest first. */
  readonly #ended = new Map<string, number>();
  /** Since when (ms) the cancel channel has been heard without a break; undefined while not subscribed. */
  #listeningSince: number | undefined;
  /** When the latest run forgotten (past ENDED_RUNS_KEPT) was heard ended (ms). */
  #forgottenUpTo = 0;
  #subscribing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  readonly #endedListedMs: number;

  /**
   * @param options.subscriber a connection of its own (it is put in subscriber mode)
   * @param options.checkEveryMs how often runs in flight are checked for an end (default 1000)
   * @param options.endedListedMs how long an ended run stays at least in the list of ended runs
   *   (the compactor's `afterMs`; default 0): read when subscribing, it is heard as if subscribed
   *   that much sooner
   */
  constructor(options: { store: RunStore; subscriber: Redis; checkEveryMs?: number; endedListedMs?: number }) {
    this.#store = options.store;
    this.#subscriber = options.subscriber;
    this.#endedListedMs = options.endedListedMs ?? 0;
    this.#subscriber.on('message', (_channel: string, runId: string) => this.abort(runId, 'cancelled'));
    // Messages published while the connection is down are lost: hearing starts again once it is
    // subscribed again (ioredis subscribes again by itself; this answers once that is done).
    this.#subscriber.on('close', () => (this.#listeningSince = undefined));
    this.#subscriber.on('ready', () => void this.#subscribe().catch(() => undefined));
    this.#timer = setInterval(() => void this.#checkInFlight(), options.checkEveryMs ?? 1000);
    this.#timer.unref();
  }

  async start(): Promise<void> {
    await this.#subscribe();
  }

  /** One subscription at a time: start() and the connection's first `ready` would read the list twice. */
  #subscribe(): Promise<void> {
    this.#subscribing ??= this.#subscribeOnce().finally(() => (this.#subscribing = undefined));
    return this.#subscribing;
  }

  async #subscribeOnce(): Promise<void> {
    await this.#subscriber.subscribe(this.#store.keys.cancelChannel);
    if (this.#listeningSince !== undefined) return;
    // What ended before is read after subscribing: a cancel is listed (its shared slot's step)
    // before it is published, so none falls between the list and the channel.
    const since = Date.now() - this.#endedListedMs;
    if (this.#endedListedMs > 0) for (const runId of await this.#store.runsEndedSince(since, ENDED_RUNS_KEPT)) this.#remember(runId);
    this.#listeningSince = since;
  }

  /** A signal that fires when the run is cancelled or ends; release it when the stage is done. */
  track(runId: string): TrackedRun {
    const controller = new AbortController();
    const set = this.#byRun.get(runId) ?? new Set();
    set.add(controller);
    this.#byRun.set(runId, set);
    return {
      signal: controller.signal,
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.#byRun.get(runId) === set) this.#byRun.delete(runId);
      },
    };
  }

  abort(runId: string, reason: string): void {
    this.#remember(runId);
    for (const controller of this.#byRun.get(runId) ?? []) controller.abort(new Error(`run ${reason}`));
  }

  /**
   * Whether this process has heard that the run was cancelled or has ended. A stage whose inputs
   * came with its job starts without reading its run (runStage): it looks here first, and its
   * signal is aborted by the once-a-second check should the message have been missed.
   */
  hasEnded(runId: string): boolean {
    return this.#ended.has(runId);
  }

  /**
   * Whether every run cancelled since `since` (ms) is one hasEnded knows: this process has been
   * subscribed since then without a break, and has forgotten no run heard ended since. A stage
   * whose job was added before that (e.g. before this process started) reads its start instead.
   */
  heardAllSince(since: number): boolean {
    return this.#listeningSince !== undefined && this.#listeningSince <= since && this.#forgottenUpTo < since;
  }

  #remember(runId: string): void {
    this.#ended.delete(runId);
    this.#ended.set(runId, Date.now());
    if (this.#ended.size > ENDED_RUNS_KEPT) {
      const oldest = this.#ended.entries().next();
      if (!oldest.done) {
        this.#ended.delete(oldest.value[0]);
        this.#forgottenUpTo = oldest.value[1];
      }
    }
  }

  async #checkInFlight(): Promise<void> {
    const runIds = [...this.#byRun.keys()];
    if (runIds.length === 0) return;
    try {
      const statuses = await this.#store.getStatuses(runIds);
      runIds.forEach((runId, i) => {
        const status = statuses[i];
        if (status && TERMINAL_STATUSES.includes(status)) this.abort(runId, status);
      });
    } catch {
      // Redis unreachable for a moment: the next tick tries again.
    }
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#subscriber.quit().catch(() => undefined);
  }
}
