/**
 * The second step of a run's status change: after the run's own script (its slot), the shared
 * slot's (run-settle.ts): the active index, its batch's counts and the webhooks owed. Each status
 * change of the run store ends here, and so does the reconciler's finishing of a step a crash cut.
 */
import type { Redis } from 'ioredis';
import { TERMINAL_STATUSES, type RunStatus } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';
import { settleKeys } from './run-settle.js';
import type { RunScripts } from './stage-scripts.js';

/** What the transition script answers (finish-script.ts): moved or not, the status before, the run's kind, its cost in nano-dollars. */
export type TransitionReply = [number, string?, string?, string?];

/** What a run store tells as it records runs: by pipeline (the run's kind), never by run. */
export interface RunObserver {
  created?(runs: { pipeline: string; count: number }): void;
  /** A run this store moved to a status that ends it. */
  ended?(run: { pipeline: string; status: RunStatus; /** USD its agents cost (0: none). */ costUsd?: number; /** Whether it was a batch's. */ batch?: boolean }): void;
}

export interface RunSettlingDeps {
  redis: Redis;
  keys: RunKeys;
  scripts: RunScripts;
  /** Seconds a finished run stays readable. */
  retentionSeconds: number;
  observer?: RunObserver | undefined;
  /** Called when a status change made a webhook owed. */
  onNotifyOwed?: (() => void) | undefined;
}

export class RunSettling {
  readonly #deps: RunSettlingDeps;

  constructor(deps: RunSettlingDeps) {
    this.#deps = deps;
  }

  /** After the run's own step of a status change (its reply), the shared slot's. */
  async moved(options: { reply: TransitionReply; runId: string; batchId: string | null | undefined; to: RunStatus }): Promise<{ moved: boolean; previous: RunStatus | null }> {
    const { reply, runId, batchId, to } = options;
    const moved = reply[0] === 1;
    const costNanos = reply[3] ?? '0';
    // The shared slot follows (run-settle.ts); also when the run is already where it was asked to
    // go, since a caller retrying after a crash may be the one to finish what the crash cut short.
    if (moved || (reply[0] === 0 && reply[1] === to)) await this.settle({ runId, batchId, to, costNanos });
    if (moved && TERMINAL_STATUSES.includes(to)) this.#deps.observer?.ended?.({ pipeline: reply[2] ?? 'unknown', status: to, costUsd: Number(costNanos) / 1e9, batch: Boolean(batchId) });
    return { moved, previous: (reply[1] as RunStatus | undefined) ?? null };
  }

  /** What the shared slot keeps about a run once it moved to `to`: the active index, its batch's counts. */
  async settle(options: { runId: string; batchId: string | null | undefined; to: RunStatus; costNanos?: string | undefined }): Promise<void> {
    const keys = settleKeys(this.#deps.keys, options.batchId);
    // A run of no batch keeps nothing on the shared slot until it ends.
    if (!options.batchId && !TERMINAL_STATUSES.includes(options.to)) return;
    const ended = TERMINAL_STATUSES.includes(options.to) ? '1' : '0';
    const reply = (await this.#deps.scripts.settle(keys.length, ...keys, options.runId, options.to, ended, String(this.#deps.retentionSeconds), options.batchId ?? '', options.costNanos ?? '0')) as [number, number];
    if (reply[1] > 0) this.#deps.onNotifyOwed?.();
  }

  /**
   * Finishes the shared slot's step for runs that ended but are still in the active index (a
   * process died between a run's two steps): the reconciler calls this for those it meets.
   */
  async settleEndedRuns(runs: readonly { id: string; status: RunStatus | null; batchId: string | null }[]): Promise<void> {
    for (const run of runs) {
      if (!run.status || !TERMINAL_STATUSES.includes(run.status)) continue;
      // A batch's run brings its cost (final once it ended) to the batch as it is counted ended.
      const costNanos = run.batchId ? ((await this.#deps.redis.hget(this.#deps.keys.run(run.id), 'cost_nanos')) ?? '0') : '0';
      await this.settle({ runId: run.id, batchId: run.batchId, to: run.status, costNanos });
    }
  }
}
