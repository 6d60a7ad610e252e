/**
 * A new run as the run store records it: its id and the fields of its hash, `queued`, before any
 * stage has started (a stage reads as pending until its record is written).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { KeyedPipeline } from '@switchyard/redis';
import { inputTopic } from './run-listing.js';
import type { FlowTag } from '../catalog.js';
import type { RunKeys } from './keys.js';
import { crashPoint } from '../crash-points.js';

/** Runs added to the index per ZADD when many are created at once. */
const INDEX_IDS_PER_COMMAND = 1000;

export interface NewRun {
  id?: string;
  kind: string;
  request: unknown;
  stages: readonly string[];
  batchId?: string | undefined;
  pipeline?: { name: string; version: number };
  /** Step name → the queue its jobs run on, so that a run's jobs can be found. */
  stepQueues?: Record<string, string>;
  /** Map steps whose branches are known at the start: step name → branch stage names. */
  branches?: Record<string, string[]>;
  /**
   * The id of the API key that holds the run (keyId): it is admitted under the key's bound of live
   * runs before it is written (live-runs.ts). None for a scheduled run.
   */
  owner?: string | undefined;
  /** A child run's place in its tree: its parent (stage, and an agent's call), its depth, and the run at the tree's root. */
  lineage?: { parent: { run_id: string; stage: string; call?: { turn: number; index: number } | undefined }; depth: number; root: string } | undefined;
  /** Its flow control (priority class, fair-share key, concurrency key), as its jobs carry it. */
  flow?: FlowTag | undefined;
}

export const newRunId = () => `run_${randomUUID().replace(/-/g, '')}`;

const texts = new WeakMap<object, string>();
/** JSON of a run's shape (its stages, queues, branches): the same objects for every run of a version, written once. */
function shapeJson(value: object): string {
  let text = texts.get(value);
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)));
  return text;
}

const withTopic = (topic: string | null): Record<string, string> => (topic === null ? {} : { topic });

/** The hash fields of a new run. */
export function newRunFields(options: { run: NewRun; id: string; created: string }): Record<string, string | number> {
  const { run, id, created } = options;
  return {
    id,
    kind: run.kind,
    status: 'queued',
    created_at: created,
    updated_at: created,
    batch_id: run.batchId ?? '',
    request: JSON.stringify(run.request),
    // What a listing shows of the input, kept short, so that listings never read the input itself.
    ...withTopic(inputTopic(run.request)),
    stage_names: shapeJson(run.stages),
    stage_count: run.stages.length,
    completed_stages: 0,
    ...(run.pipeline ? { pipeline: run.pipeline.name, pipeline_version: run.pipeline.version } : {}),
    ...(run.stepQueues ? { step_queues: shapeJson(run.stepQueues) } : {}),
    ...(run.flow ? { flow: JSON.stringify(run.flow) } : {}),
    ...Object.fromEntries(Object.entries(run.branches ?? {}).map(([step, names]) => [`${step}.branches`, shapeJson(names)])),
    ...(run.owner ? { owner: run.owner } : {}),
    // In the record from its first write: a crash cannot leave a child that does not know its depth or root.
    ...(run.lineage ? { parent: JSON.stringify(run.lineage.parent), depth: String(run.lineage.depth), root: run.lineage.root } : {}),
  };
}

/**
 * Writes runs already admitted under their key's bound (each with its id): their hashes, then
 * their index entries, then their TTL dropped. Each run's hash is in its own slot, the indexes in
 * the shared one: the hashes are written first, so that no reader of an index meets an id whose
 * run is not there yet (and drops it). A run is written with a TTL (`unlistedTtlS`), dropped once
 * it is listed: a writer that dies between the two leaves a run nobody lists and no job of which
 * exists, which then goes by itself. Answers the ids in order.
 */
export async function writeAdmittedRuns(deps: { redis: Redis; keys: Pick<RunKeys, 'run' | 'runIndex' | 'activeRuns'>; unlistedTtlS: number }, withIds: readonly NewRun[]): Promise<string[]> {
  crashPoint('run.admitted');
  const { redis, keys } = deps;
  const hashes = new KeyedPipeline(redis);
  const indexes = new KeyedPipeline(redis);
  const created = new Date().toISOString();
  const score = Date.parse(created);
  const ids = withIds.map((run) => {
    const id = run.id as string;
    // Stage records are written when stages start; until then a stage reads as pending.
    hashes.on(keys.run(id)).hset(keys.run(id), newRunFields({ run, id, created })).expire(keys.run(id), deps.unlistedTtlS);
    return id;
  });
  for (let i = 0; i < ids.length; i += INDEX_IDS_PER_COMMAND) {
    const members = ids.slice(i, i + INDEX_IDS_PER_COMMAND).flatMap((id) => [score, id]);
    indexes.on(keys.runIndex).zadd(keys.runIndex, ...members);
    indexes.on(keys.activeRuns).zadd(keys.activeRuns, ...members);
  }
  // Each step only once the one before holds: a run unlisted lapses with its TTL, one listed
  // without its hash would be an id no reader finds.
  await hashes.execOrThrow();
  crashPoint('run.hashed');
  await indexes.execOrThrow();
  crashPoint('run.indexed');
  const listed = new KeyedPipeline(redis);
  for (const id of ids) listed.on(keys.run(id)).persist(keys.run(id));
  await listed.execOrThrow();
  return ids;
}
