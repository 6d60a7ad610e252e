/**
 * The indexes the reconciler and the retention janitor work through: the runs not yet ended
 * (`{prefix}:runs:active`) and, for pruning, the run and batch indexes whose entries outlive
 * their runs' retention.
 */
import type { Redis } from 'ioredis';
import { KeyedPipeline, scriptCommand } from '@switchyard/redis';
import { TERMINAL_STATUSES, type RunStatus } from '@switchyard/contracts';
import type { FlowTag } from '../catalog.js';
import type { RunKeys } from './keys.js';
import { flowOf } from './run-record.js';

/** PERSIST KEYS[1] unless its status is one of ARGV (the terminal ones). */
const PERSIST_IF_LIVE = `local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
for _, ended in ipairs(ARGV) do if status == ended then return 0 end end
return redis.call('PERSIST', KEYS[1])`;

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

/**
 * Lists an existing run in the indexes again (ZADD NX, by its creation time): for a writer that
 * may have died between writing the run's hash and its index entries (new-run.ts).
 */
export async function indexAgain(deps: RunIndexDeps, runId: string): Promise<void> {
  const { redis, keys } = deps;
  const [created, status] = await redis.hmget(keys.run(runId), 'created_at', 'status');
  if (!created) return;
  const score = Date.parse(created);
  const live = Boolean(status && !TERMINAL_STATUSES.includes(status as RunStatus));
  const pipeline = new KeyedPipeline(redis);
  pipeline.on(keys.runIndex).zadd(keys.runIndex, 'NX', score, runId);
  if (live) pipeline.on(keys.activeRuns).zadd(keys.activeRuns, 'NX', score, runId);
  await pipeline.execOrThrow();
  // Listed now: the TTL a run is written with until then goes; in one script with the status
  // read, so that a run ended meanwhile keeps its retention.
  if (live) await scriptCommand(redis, 'syPersistIfLive', PERSIST_IF_LIVE, { numberOfKeys: 1 })(keys.run(runId), ...TERMINAL_STATUSES);
}

/** Statuses of many runs in one round trip per master (null for unknown ids). */
export async function readStatuses(deps: RunIndexDeps, runIds: readonly string[]): Promise<(RunStatus | null)[]> {
  if (runIds.length === 0) return [];
  const pipeline = new KeyedPipeline(deps.redis);
  for (const id of runIds) pipeline.on(deps.keys.run(id)).hget(deps.keys.run(id), 'status');
  return (await pipeline.execOrThrow()).map((status) => (status as RunStatus | null) ?? null);
}

/** A run's status and flow control (none for runs created before flow control); its request when asked (`{ value }`, absent when it has none). */
export interface RunState {
  status: RunStatus | null;
  flow: FlowTag | undefined;
  request?: { value: unknown };
}

export async function readStatesWithFlow(deps: RunIndexDeps, runIds: readonly string[], options: { withRequest?: boolean } = {}): Promise<RunState[]> {
  if (runIds.length === 0) return [];
  const pipeline = new KeyedPipeline(deps.redis);
  const fields = options.withRequest ? ['status', 'flow', 'request'] : ['status', 'flow'];
  for (const id of runIds) pipeline.on(deps.keys.run(id)).hmget(deps.keys.run(id), ...fields);
  return (await pipeline.execOrThrow()).map((values) => {
    const [status, flow, request] = (values as (string | null)[] | null) ?? [];
    return { status: (status as RunStatus | null) ?? null, flow: flowOf(flow), ...(request ? { request: { value: JSON.parse(request) as unknown } } : {}) };
  });
}
