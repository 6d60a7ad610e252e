/**
 * Every Redis key the run store uses, under one prefix. The prefix is also BullMQ's queue prefix,
 * so one deployment (or one test) owns everything below it. For Redis Cluster give a hash-tagged
 * prefix such as `{sy}` so that a run's keys and its queues share a slot.
 */
export interface RunKeys {
  run(runId: string): string;
  outputs(runId: string): string;
  events(runId: string): string;
  /** A compacted run's result, stage records and events, brotli-compressed (see run-archive.ts). */
  archive(runId: string): string;
  batch(batchId: string): string;
  batchRuns(batchId: string): string;
  batchEvents(batchId: string): string;
  idempotency(key: string): string;
  /** Sorted set of run ids by creation time, for listing. */
  runIndex: string;
  /** Sorted set of batch ids by creation time, for listing. */
  batchIndex: string;
  /** Sorted set of the runs not yet ended, by creation time, for the reconciler. */
  activeRuns: string;
  /** Sorted set of ended runs not yet compacted, by when they ended (ms), for the compactor. */
  endedRuns: string;
  /** The reconciler's lease: one worker process at a time sweeps. */
  reconcilerLease: string;
  /** The retention janitor's lease, likewise. */
  janitorLease: string;
  /** The compactor's lease, likewise. */
  compactorLease: string;
  cancelChannel: string;
}

export function runKeys(prefix: string): RunKeys {
  return {
    run: (id) => `${prefix}:run:${id}`,
    outputs: (id) => `${prefix}:run:${id}:outputs`,
    events: (id) => `${prefix}:run:${id}:events`,
    archive: (id) => `${prefix}:run:${id}:archive`,
    batch: (id) => `${prefix}:batch:${id}`,
    batchRuns: (id) => `${prefix}:batch:${id}:runs`,
    batchEvents: (id) => `${prefix}:batch:${id}:events`,
    idempotency: (key) => `${prefix}:idem:${key}`,
    runIndex: `${prefix}:runs`,
    batchIndex: `${prefix}:batches`,
    activeRuns: `${prefix}:runs:active`,
    endedRuns: `${prefix}:runs:ended`,
    reconcilerLease: `${prefix}:reconciler:lease`,
    janitorLease: `${prefix}:janitor:lease`,
    compactorLease: `${prefix}:compactor:lease`,
    cancelChannel: `${prefix}:cancel`,
  };
}
