/**
 * The indexes the reconciler and the retention janitor work through: the runs not yet ended
 * (`{prefix}:runs:active`) and, for pruning, the run and batch indexes whose entries outlive
 * their runs' retention.
 */
import type { Redis } from 'ioredis';
import { KeyedPipeline } from '@switchyard/redis';
import type { RunStatus } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';

/** A run not yet ended, as the reconciler sees it. */
export interface ActiveRun {
  id: string;
  /** null when the run's hash is gone. */
  status: RunStatus | null;
  kind: string;
  stages: string[];
  batchId: string | null;
  /** Step name → the queue its jobs run on. */
  stepQueues: Record<string, string>;
}

export interface RunIndexDeps {
  redis: Redis;
  keys: RunKeys;
}

/**
 * A page of the runs not yet ended that were created before `createdBefore` (ms), oldest
 * first, with what the reconciler needs to find their jobs.
 */
export async function listActiveRuns(deps: RunIndexDeps, options: { createdBefore: number; offset: number; count: number }): Promise<ActiveRun[]> {
  const ids = await deps.redis.zrangebyscore(deps.keys.activeRuns, '-inf', options.createdBefore, 'LIMIT', options.offset, options.count);
  return readActiveRuns(deps, ids);
}

/** What the reconciler needs of runs, read afresh: a map step's branches change a run's stages. */
export async function readActiveRuns(deps: RunIndexDeps, ids: readonly string[]): Promise<ActiveRun[]> {
  if (ids.length === 0) return [];
  const pipeline = new KeyedPipeline(deps.redis);
  for (const id of ids) pipeline.on(deps.keys.run(id)).hmget(deps.keys.run(id), 'status', 'kind', 'stage_names', 'batch_id', 'step_queues');
  const replies = await pipeline.execOrThrow();
  return ids.map((id, i) => {
    const [status, kind, stageNames, batchId, stepQueues] = (replies[i] as (string | null)[] | null | undefined) ?? [];
    return {
      id,
      status: (status as RunStatus | null | undefined) ?? null,
      kind: kind ?? 'story',
      stages: stageNames ? (JSON.parse(stageNames) as string[]) : [],
      batchId: batchId || null,
      stepQueues: stepQueues ? (JSON.parse(stepQueues) as Record<string, string>) : {},
    };
  });
}

/**
 * Drops from the run index and the batch index, in bounded steps, the runs and batches created
 * before `createdBefore` (ms) whose retention has passed (their hash is gone). Returns how many
 * ids were dropped.
 */
export async function pruneIndexes(deps: RunIndexDeps, options: { createdBefore: number; maxIds: number }): Promise<number> {
  const runs = await pruneIndex(deps, { ...options, index: deps.keys.runIndex, keyOf: deps.keys.run });
  return runs + (await pruneIndex(deps, { ...options, index: deps.keys.batchIndex, keyOf: deps.keys.batch }));
}

async function pruneIndex(deps: RunIndexDeps, options: { createdBefore: number; maxIds: number; index: string; keyOf: (id: string) => string }): Promise<number> {
  let pruned = 0;
  for (let offset = 0; offset < options.maxIds; ) {
    const ids = await deps.redis.zrangebyscore(options.index, '-inf', options.createdBefore, 'LIMIT', offset, 500);
    if (ids.length === 0) break;
    const pipeline = new KeyedPipeline(deps.redis);
    for (const id of ids) pipeline.on(options.keyOf(id)).exists(options.keyOf(id));
    // A failed read must not pass for a run gone: that would unlist a live run.
    const exists = (await pipeline.execOrThrow()).map((found) => found === 1);
    const gone = ids.filter((_, i) => !exists[i]);
    if (gone.length > 0) await deps.redis.zrem(options.index, ...gone);
    pruned += gone.length;
    // Removed ids no longer take places before the next page.
    offset += ids.length - gone.length;
    if (ids.length < 500) break;
  }
  return pruned;
}
