/**
 * What a webhook tells: a run's id, pipeline, status, result or error and times; a batch's
 * counts. A result larger than its bound is left out (`result_omitted`), the run's URL says where
 * to read it, so a delivery's body stays small whatever a run made.
 */
import { jsonBytesWithin } from '../store/limits.js';
import type { BatchStore } from '../store/batch-store.js';
import type { RunStore } from '../store/run-store.js';
import { batchLinks, runLinks } from '../store/run-view.js';

/** Largest result a webhook carries, as JSON; a larger one is omitted. */
export const NOTIFY_RESULT_MAX_BYTES = 256 * 1024;

/** The body of the webhook of `target` (`run:<id>` or `batch:<id>`); null when it is no longer kept. */
export async function notifySummary(deps: { store: RunStore; batches: BatchStore }, target: string): Promise<Record<string, unknown> | null> {
  const [kind, id = ''] = target.split(':');
  if (kind === 'batch') {
    const batch = await deps.batches.getBatch(id, { offset: 0, limit: 1 });
    if (!batch) return null;
    return { type: 'batch', batch_id: id, status: 'done', total: batch.total, counts: batch.counts, created_at: batch.created_at, poll_url: batchLinks(id).poll_url };
  }
  const run = await deps.store.getRun(id);
  if (!run) return null;
  const withinBound = run.result === undefined || run.result === null || jsonBytesWithin(run.result, NOTIFY_RESULT_MAX_BYTES) !== undefined;
  return {
    type: 'run',
    run_id: id,
    pipeline: run.pipeline ?? null,
    status: run.status,
    ...(run.status === 'completed' ? (withinBound ? { result: run.result ?? null } : { result_omitted: true }) : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.batch_id ? { batch_id: run.batch_id } : {}),
    created_at: run.created_at,
    ended_at: run.updated_at,
    poll_url: runLinks(id).poll_url,
  };
}
