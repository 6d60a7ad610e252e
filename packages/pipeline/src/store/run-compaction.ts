/**
 * Compacting ended runs into their archives (run-archive.ts). A run's status change lists every
 * run it ends in `{sy}:runs:ended` (its shared-slot step, run-settle.ts); a compactor takes the runs that ended a while ago (so the
 * clients following them have read their end), and for each, in one MULTI under WATCH of the
 * run's hash, stream and outputs: writes the archive with the run's TTL, rewrites the hash with its kept
 * fields only (a rewritten small hash is a listpack again), empties the stream (keeping its TTL and
 * last id) and leaves a tombstone for the outputs of a run that did not complete; then it drops the
 * run from the list (a key of the shared slot, so not in the run's transaction). A run written to between the read and the EXEC is
 * left for the next pass; a compactor that dies midway has changed nothing, and a run already
 * compacted is only dropped from the list. So a run is compacted once, whole, and no event is lost.
 *
 * A transaction (20 runs; one on a Redis Cluster, whose keys share the run's slot) costs two script
 * calls (compaction-scripts.ts): after the WATCH, one reads its runs and answers each one's archive
 * text, which the worker only compresses; inside the MULTI, one writes them all. The five reads and
 * six writes a run took as commands cost more worker CPU in ioredis than brotli did: measured in the
 * zero-latency story bench, a pass cost 0.86 ms of worker CPU per run before, 0.33 ms after (docs/OPERATIONS.md,
 * "What a finished run keeps"), for about 0.07 ms more of Redis CPU per run (the script's Lua).
 */
import type { Redis } from 'ioredis';
import { isCluster } from '@switchyard/redis';
import { jobId } from '../catalog.js';
import type { RunKeys } from './keys.js';
import { compressArchiveText } from './run-archive.js';
import { archiveText, queueCompactionWrite, readForCompaction } from './compaction-scripts.js';
import { crashPoint } from '../crash-points.js';

export interface CompactionOptions {
  /** A connection of the compactor's own: WATCH holds per connection, and nothing else may use it meanwhile. */
  redis: Redis;
  keys: RunKeys;
  /** Runs that ended before this time (ms) are compacted. */
  endedBefore: number;
  /** Seconds a run is kept when its hash has no TTL (it always has one once ended). */
  retentionSeconds: number;
  /** Runs taken per pass, at most (default 1000). */
  maxRuns?: number;
  /** Runs per transaction (default 20; 1 on a Redis Cluster, where a transaction stays in one run's slot). */
  perTransaction?: number;
}

export interface CompactionReport {
  /** Runs compacted. */
  compacted: number;
  /** Ids dropped from the list with nothing to do: the run is gone, or compacted already. */
  dropped: number;
  /** Runs written to meanwhile, left for the next pass. */
  deferred: number;
  /** Bytes of the archives written. */
  archive_bytes: number;
  /** The step jobs each compacted run may have left failed (queue and job id; see stepJobsOf), for the caller to tidy. */
  jobs: { queue: string; jobId: string }[];
}

const none = (): CompactionReport => ({ compacted: 0, dropped: 0, deferred: 0, archive_bytes: 0, jobs: [] });

function add(a: CompactionReport, b: CompactionReport): CompactionReport {
  return { compacted: a.compacted + b.compacted, dropped: a.dropped + b.dropped, deferred: a.deferred + b.deferred, archive_bytes: a.archive_bytes + b.archive_bytes, jobs: [...a.jobs, ...b.jobs] };
}

/**
 * The step jobs a compacted run may have left failed, from its hash (a branch `step.key` is on its
 * step's queue): of a completed run, those refused because it had ended (marked `<stage>.refused`
 * by the refusing worker); of a failed or cancelled one, every stage's too, since a parent failed
 * by its child never starts, so never marks itself.
 */
function stepJobsOf(runId: string, hash: { status: string; step_queues: string; stage_names: string; refused: string }): { queue: string; jobId: string }[] {
  try {
    const refused = hash.refused ? hash.refused.split(',') : [];
    if (hash.status === 'completed' && refused.length === 0) return [];
    const queues = JSON.parse(hash.step_queues || '{}') as Record<string, string>;
    const stages = hash.status === 'completed' ? refused : [...new Set([...(JSON.parse(hash.stage_names || '[]') as string[]), ...refused])];
    return stages.flatMap((stage) => {
      const queue = queues[stage.split('.')[0] ?? ''];
      return queue ? [{ queue, jobId: jobId(runId, stage) }] : [];
    });
  } catch {
    return [];
  }
}

/** One bounded pass over the runs that ended before `endedBefore`, oldest first. */
export async function compactEndedRuns(options: CompactionOptions): Promise<CompactionReport> {
  const ids = await options.redis.zrangebyscore(options.keys.endedRuns, '-inf', options.endedBefore, 'LIMIT', 0, options.maxRuns ?? 1000);
  const size = options.perTransaction ?? (isCluster(options.redis) ? 1 : 20);
  let report = none();
  for (let from = 0; from < ids.length; from += size) {
    const chunk = ids.slice(from, from + size);
    const done = await compactChunk(options, chunk);
    // One run written to meanwhile voids its chunk's transaction: the others go one by one.
    if (done) report = add(report, done);
    else for (const id of chunk) report = add(report, (await compactChunk(options, [id])) ?? { ...none(), deferred: 1 });
  }
  return report;
}

/** How long a compaction compresses before letting the process's other work run. */
const YIELD_MS = 2;

/** A run's four keys, as the compaction scripts take them. */
const scriptKeys = (keys: RunKeys, id: string) => [keys.run(id), keys.events(id), keys.outputs(id), keys.archive(id)];

/** Compacts `runIds` in one transaction; null when a watched key changed and nothing was written. */
async function compactChunk(options: CompactionOptions, runIds: readonly string[]): Promise<CompactionReport | null> {
  const { redis, keys } = options;
  await redis.watch(...runIds.flatMap((id) => [keys.run(id), keys.events(id), keys.outputs(id)]));
  try {
    const replies = await readForCompaction(redis, runIds.flatMap((id) => scriptKeys(keys, id)));
    const report = none();
    const written: string[] = [];
    const archives: Buffer[] = [];
    let ranSince = performance.now();
    for (const [i, id] of runIds.entries()) {
      const [status, text, queues, names, refused] = replies[i] ?? [];
      // Gone (retention), compacted already, or not ended (the transition lists it again when it ends).
      if (!status || !text) {
        report.dropped += 1;
        continue;
      }
      // Compressing takes a while (0.1 ms for a story of the bench, 1 ms for a long one): let the
      // process's other work in between, every YIELD_MS or so (a turn each run cost more than some runs).
      if (performance.now() - ranSince > YIELD_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        ranSince = performance.now();
      }
      const value = compressArchiveText(archiveText(text));
      written.push(id);
      archives.push(value);
      report.compacted += 1;
      report.archive_bytes += value.length;
      report.jobs.push(...stepJobsOf(id, { status: status.toString(), step_queues: queues?.toString() ?? '', stage_names: names?.toString() ?? '', refused: refused?.toString() ?? '' }));
    }
    if (written.length === 0) await redis.unwatch();
    else {
      const tx = redis.multi();
      queueCompactionWrite(tx, { keys: written.flatMap((id) => scriptKeys(keys, id)), retentionMs: options.retentionSeconds * 1000, archives });
      const done = await tx.exec();
      if (done === null) return null;
      const [error] = done[0] ?? [];
      if (error) throw error;
      crashPoint('run.compacted');
    }
    // The list is in the shared slot, so it follows the runs' own transaction: a compactor dying in
    // between leaves ids whose runs are compacted already, which the next pass drops.
    await redis.zrem(keys.endedRuns, ...runIds);
    return report;
  } catch (error) {
    await redis.unwatch();
    throw error;
  }
}
