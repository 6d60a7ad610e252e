/**
 * Every Redis key the run store uses, laid out for Redis Cluster (see `keyspace` in
 * @switchyard/redis): a run's hash, outputs and events share the run's own hash tag
 * (`{sy:run:<id>}`), so a run's scripts touch one slot while runs spread over the masters; what
 * many runs share (the indexes, batches, leases, idempotency keys) is in the shared slot `{sy}`,
 * with BullMQ's queues. A script never mixes the two: a run's status change and its batch's
 * counts are two ordered steps (see run-settle.ts).
 */
import { keyspace } from '@switchyard/redis';

export interface RunKeys {
  run(runId: string): string;
  outputs(runId: string): string;
  events(runId: string): string;
  /** A compacted run's result, stage records and events, brotli-compressed (see run-archive.ts). */
  archive(runId: string): string;
  /** Hash: the items of the run's map steps fanned out at run time, `<step>.<index>` → item JSON; dropped when the run ends. */
  items(runId: string): string;
  /** Set: the ids of every child run started in the tree this run is the root of (run-tree.ts). */
  tree(runId: string): string;
  batch(batchId: string): string;
  batchRuns(batchId: string): string;
  batchEvents(batchId: string): string;
  /** Hash: run id → the status the batch's counts hold for it (what makes counting idempotent). */
  batchStatuses(batchId: string): string;
  idempotency(key: string): string;
  /** Sorted set of run ids by creation time, for listing. */
  runIndex: string;
  /** Sorted set of batch ids by creation time, for listing. */
  batchIndex: string;
  /** Sorted set of the runs not yet ended, by creation time, for the reconciler. */
  activeRuns: string;
  /** Sorted set of ended runs not yet compacted, by when they ended (ms), for the compactor. */
  endedRuns: string;
  /** Sorted set of the runs an API key holds (live-runs.ts), by when each was admitted (ms). */
  liveRuns: string;
  /** Hash: run id → the id of the API key holding it. */
  liveRunOwners: string;
  /** Hash: API key id → how many runs it holds. */
  liveRunCounts: string;
  /** The reconciler's lease: one worker process at a time sweeps. */
  reconcilerLease: string;
  /** The retention janitor's lease, likewise. */
  janitorLease: string;
  /** The compactor's lease, likewise. */
  compactorLease: string;
  cancelChannel: string;
  /** Hash: `run:<id>` or `batch:<id>` → the webhook URL its end is told to (run-settle.ts). */
  notifyTargets: string;
  /** Sorted set: the targets whose end is to be told, by when they ended (ms), until their delivery job is added. */
  notifyPending: string;
  /** A SCAN pattern for every key of the deployment. */
  pattern: string;
}

export function runKeys(prefix: string): RunKeys {
  const space = keyspace(prefix);
  const shared = space.shared;
  const run = (id: string) => space.own('run', id);
  return {
    run,
    outputs: (id) => `${run(id)}:outputs`,
    events: (id) => `${run(id)}:events`,
    archive: (id) => `${run(id)}:archive`,
    items: (id) => `${run(id)}:items`,
    tree: (id) => `${run(id)}:tree`,
    batch: (id) => `${shared}:batch:${id}`,
    batchRuns: (id) => `${shared}:batch:${id}:runs`,
    batchEvents: (id) => `${shared}:batch:${id}:events`,
    batchStatuses: (id) => `${shared}:batch:${id}:statuses`,
    idempotency: (key) => `${shared}:idem:${key}`,
    runIndex: `${shared}:runs`,
    batchIndex: `${shared}:batches`,
    activeRuns: `${shared}:runs:active`,
    endedRuns: `${shared}:runs:ended`,
    liveRuns: `${shared}:runs:live`,
    liveRunOwners: `${shared}:runs:live:owner`,
    liveRunCounts: `${shared}:runs:live:count`,
    reconcilerLease: `${shared}:reconciler:lease`,
    janitorLease: `${shared}:janitor:lease`,
    compactorLease: `${shared}:compactor:lease`,
    cancelChannel: `${shared}:cancel`,
    notifyTargets: `${shared}:notify:targets`,
    notifyPending: `${shared}:notify:pending`,
    pattern: space.pattern,
  };
}
