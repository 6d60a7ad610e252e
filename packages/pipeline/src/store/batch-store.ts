/**
 * Batches: a hash with counts by status (kept in step by the run transition script), the list
 * of its run ids for paging, and a stream of events as its runs finish.
 */
import { randomUUID } from 'node:crypto';
import { KeyedPipeline, scriptCommand } from '@switchyard/redis';
import { RunStatus, type BatchCounts, type BatchPage, type BatchSummary, type PageMarks } from '@switchyard/contracts';
import { withinBudget } from './page-budget.js';
import { batchLinks } from './run-view.js';
import { newRunId, type NewRun, type RunStore } from './run-store.js';
import { crashPoint } from '../crash-points.js';

const RUN_IDS_PER_COMMAND = 1000;
/** PERSIST the batch (KEYS[1]) and its run list (KEYS[2]) while some of its runs have not ended. */
const PERSIST_UNFINISHED = `local counts = redis.call('HMGET', KEYS[1], 'total', 'finished')
if not counts[1] or tonumber(counts[2] or '0') >= tonumber(counts[1]) then return 0 end
redis.call('PERSIST', KEYS[1])
return redis.call('PERSIST', KEYS[2])`;
export const newBatchId = () => `batch_${randomUUID().replace(/-/g, '')}`;

export class BatchStore {
  readonly #runs: RunStore;

  constructor(runs: RunStore) {
    this.#runs = runs;
  }

  /** Records a batch and its runs (all `queued`) in one round trip, and lists it in the batch index. */
  async createBatch(options: { id?: string; runs: readonly Omit<NewRun, 'batchId'>[] }): Promise<{ batchId: string; runIds: string[] }> {
    const { keys, redis } = this.#runs;
    const batchId = options.id ?? newBatchId();
    const withIds = options.runs.map((run) => ({ ...run, id: run.id ?? newRunId(), batchId }));
    const runIds = withIds.map((run) => run.id);
    // Before anything is written: a batch past its key's bound of live runs leaves no trace.
    await this.#runs.admitRuns(withIds);
    const pipeline = new KeyedPipeline(redis);
    const created = new Date();
    const pipelineName = options.runs[0]?.pipeline?.name;
    pipeline.on(keys.batch(batchId)).hset(keys.batch(batchId), { id: batchId, created_at: created.toISOString(), total: runIds.length, dispatched: 0, finished: 0, 'n:queued': runIds.length, ...(pipelineName ? { pipeline: pipelineName } : {}) });
    pipeline.on(keys.batchIndex).zadd(keys.batchIndex, created.getTime(), batchId);
    for (let i = 0; i < runIds.length; i += RUN_IDS_PER_COMMAND) pipeline.on(keys.batchRuns(batchId)).rpush(keys.batchRuns(batchId), ...runIds.slice(i, i + RUN_IDS_PER_COMMAND));
    // With a TTL until its runs are written (as a run until it is listed, createRuns): a writer
    // that dies between the two leaves a batch of no runs, which then goes by itself.
    const unwrittenTtl = Math.max(this.#runs.retentionSeconds, 3600);
    pipeline.on(keys.batch(batchId)).expire(keys.batch(batchId), unwrittenTtl);
    pipeline.on(keys.batchRuns(batchId)).expire(keys.batchRuns(batchId), unwrittenTtl);
    // Its runs are written only once it is.
    await pipeline.execOrThrow();
    crashPoint('batch.written');
    await this.#runs.createRuns(withIds);
    await this.keepBatch(batchId);
    return { batchId, runIds };
  }

  /** Drops the TTL a batch is written with, once its runs are (unless its runs have all ended: it keeps its retention then). */
  async keepBatch(batchId: string): Promise<void> {
    const { keys, redis } = this.#runs;
    await scriptCommand(redis, 'syPersistBatch', PERSIST_UNFINISHED, { numberOfKeys: 2 })(keys.batch(batchId), keys.batchRuns(batchId));
  }

  /** Every run id of the batch, in order (none for a batch not written). */
  runIdsOf(batchId: string): Promise<string[]> {
    return this.#runs.redis.lrange(this.#runs.keys.batchRuns(batchId), 0, -1);
  }

  /** The batch's counts and a page of its runs (at most `limit`, and within the listing budget). */
  async getBatch(batchId: string, page: { offset: number; limit: number }): Promise<BatchPage | null> {
    const { keys, redis } = this.#runs;
    // One more than the page: whether a next page exists.
    const [[, hash], [, read]] = (await redis.multi().hgetall(keys.batch(batchId)).lrange(keys.batchRuns(batchId), page.offset, page.offset + page.limit).exec()) as [[null, Record<string, string>], [null, string[]]];
    if (!hash.id) return null;
    const ids = read.slice(0, page.limit);
    const statuses = await this.#runs.getStatuses(ids);
    const counts = countsOf(hash);
    const runs = withinBudget(
      ids.map((run_id, i) => ({ run_id, status: statuses[i] ?? null })),
      { budget: this.#runs.limits.listPageBytes, offset: page.offset, more: read.length > page.limit },
    );
    return {
      batch_id: batchId,
      created_at: hash.created_at ?? '',
      total: Number(hash.total ?? 0),
      dispatched: Number(hash.dispatched ?? 0),
      counts,
      cost_usd: costOf(hash),
      runs: runs.items,
      offset: page.offset,
      limit: page.limit,
      next_offset: runs.next_offset,
      truncated: runs.truncated,
    };
  }

  /**
   * Newest first, with counts and no runs. Ids whose batch has passed its retention are dropped
   * from the index as they are met (the retention janitor drops the rest).
   */
  async listBatches(page: { offset: number; limit: number }): Promise<{ batches: BatchSummary[] } & PageMarks> {
    const { keys, redis } = this.#runs;
    // One more than the page: whether a next page exists.
    const read = await redis.zrevrange(keys.batchIndex, page.offset, page.offset + page.limit);
    const ids = read.slice(0, page.limit);
    if (ids.length === 0) return { batches: [], next_offset: null, truncated: false };
    const pipeline = new KeyedPipeline(redis);
    for (const id of ids) pipeline.on(keys.batch(id)).hgetall(keys.batch(id));
    // A failed read must not pass for a batch gone: it would be dropped from the index.
    const hashes = (await pipeline.execOrThrow()).map((hash) => (hash ?? {}) as Record<string, string>);
    const gone = ids.filter((_, i) => !hashes[i]?.id);
    if (gone.length > 0) await redis.zrem(keys.batchIndex, ...gone);
    const batches = withinBudget(hashes.filter((hash) => hash.id).map((hash) => summaryOf(hash)), { budget: this.#runs.limits.listPageBytes, offset: page.offset, more: read.length > page.limit });
    return { batches: batches.items, next_offset: batches.next_offset, truncated: batches.truncated };
  }

  /** The next `count` run ids not yet dispatched, and where they start. */
  async nextToDispatch(batchId: string, count: number): Promise<{ cursor: number; runIds: string[] }> {
    const { keys, redis } = this.#runs;
    const cursor = Number((await redis.hget(keys.batch(batchId), 'dispatched')) ?? 0);
    const runIds = await redis.lrange(keys.batchRuns(batchId), cursor, cursor + count - 1);
    return { cursor, runIds };
  }

  async markDispatched(batchId: string, upTo: number): Promise<void> {
    await this.#runs.redis.hset(this.#runs.keys.batch(batchId), 'dispatched', upTo);
  }
}

function countsOf(hash: Record<string, string>): BatchCounts {
  return Object.fromEntries(RunStatus.options.map((s) => [s, Number(hash[`n:${s}`] ?? 0)])) as BatchCounts;
}

/** USD the batch's ended runs cost: summed in Redis as whole nano-dollars as each ends (run-settle.ts). */
const costOf = (hash: Record<string, string>) => Number(hash.cost_nanos ?? 0) / 1_000_000_000;

function summaryOf(hash: Record<string, string>): BatchSummary {
  const batchId = hash.id ?? '';
  const counts = countsOf(hash);
  const total = Number(hash.total ?? 0);
  const finished = counts.completed + counts.failed + counts.cancelled;
  return {
    batch_id: batchId,
    created_at: hash.created_at ?? '',
    pipeline: hash.pipeline || null,
    total,
    dispatched: Number(hash.dispatched ?? 0),
    counts,
    cost_usd: costOf(hash),
    status: finished === total ? 'done' : 'running',
    ...batchLinks(batchId),
  };
}
