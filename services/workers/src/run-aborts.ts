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

export class RunAborts {
  readonly #store: RunStore;
  readonly #subscriber: Redis;
  readonly #byRun = new Map<string, Set<AbortController>>();
  readonly #ended = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param options.subscriber a connection of its own (it is put in subscriber mode)
   * @param options.checkEveryMs how often runs in flight are checked for an end (default 1000)
   */
  constructor(options: { store: RunStore; subscriber: Redis; checkEveryMs?: number }) {
    this.#store = options.store;
    this.#subscriber = options.subscriber;
    this.#subscriber.on('message', (_channel: string, runId: string) => this.abort(runId, 'cancelled'));
    this.#timer = setInterval(() => void this.#checkInFlight(), options.checkEveryMs ?? 1000);
    this.#timer.unref();
  }

  async start(): Promise<void> {
    await this.#subscriber.subscribe(this.#store.keys.cancelChannel);
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

  #remember(runId: string): void {
    this.#ended.delete(runId);
    this.#ended.add(runId);
    if (this.#ended.size > ENDED_RUNS_KEPT) {
      const oldest = this.#ended.values().next();
      if (!oldest.done) this.#ended.delete(oldest.value);
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
