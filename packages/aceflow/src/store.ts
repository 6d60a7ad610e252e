/**
 * AceFlow projects in Redis, so that every bridge and worker process sees the same flow. Per
 * project, under `{sy:aceflow}:project:{name}` (see aceflowKeys):
 *
 *   (hash)            name, mode, workspace, created_at, last_updated, current_stage
 *   :analysis (hash)  data (JSON), version, analysis_id, updated_at
 *   :outputs (hash)   stage → JSON {content, metadata, artifacts, saved_at}
 *   :prepared (set)   stages whose data package was fetched (their status is in_progress)
 *
 * and `{sy:aceflow}:workspaces` (hash) maps each claimed workspace to its project.
 *
 * Whatever two processes could race on is one atomic step: creating a project (once, with its
 * workspace claimed), merging the analysis (compare-and-set on its version), moving the current
 * stage (compare-and-set on it, with the required outputs checked in the same script). Outputs are only ever added, so checking
 * that one exists before acting on it stays true.
 */
import type { Redis } from 'ioredis';
import { keyspace } from '@switchyard/redis';
import type { AnalysisData } from './inputs.js';
import { isMode, isStageId, type AceflowMode, type StageId } from './stages.js';

export interface ProjectRecord {
  name: string;
  mode: AceflowMode;
  /** Relative to the workspace root. */
  workspace: string;
  created_at: string;
  last_updated: string;
  current_stage: StageId;
}

export interface StoredOutput {
  content: string;
  metadata: Record<string, unknown>;
  artifacts: Record<string, unknown>;
  saved_at: string;
}

export interface StoredAnalysis {
  data: AnalysisData;
  /** "0" when nothing is stored yet; the compare-and-set token. */
  version: string;
  analysisId: string | null;
}

/** A consistent view of a project's flow, read in one MULTI. */
export interface ProjectSnapshot {
  project: ProjectRecord;
  analysisAvailable: boolean;
  saved: Set<StageId>;
  prepared: Set<StageId>;
}

/**
 * Creates the project unless it exists, claiming its workspace in the same step so that two
 * projects never write to one `aceflow_result/`. Answers {'ok', hash…} or {'taken', owner}.
 */
const OPEN_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  local owner = redis.call('HGET', KEYS[2], ARGV[3])
  if owner and owner ~= ARGV[1] then return {'taken', owner} end
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[1], 'name', ARGV[1], 'mode', ARGV[2], 'workspace', ARGV[3], 'created_at', ARGV[4], 'last_updated', ARGV[4], 'current_stage', ARGV[5])
end
local reply = redis.call('HGETALL', KEYS[1])
table.insert(reply, 1, 'ok')
return reply
`;

const ANALYSIS_CAS_SCRIPT = `
local version = redis.call('HGET', KEYS[1], 'version') or '0'
if version ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'version', tostring(tonumber(version) + 1), 'analysis_id', ARGV[3], 'updated_at', ARGV[4])
redis.call('HSET', KEYS[2], 'last_updated', ARGV[4])
return 1
`;

/** ARGV: expected current stage, target, now, then the stages whose outputs must exist. */
const MOVE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'current_stage') ~= ARGV[1] then return {'conflict'} end
local missing = {'missing'}
for i = 4, #ARGV do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then table.insert(missing, ARGV[i]) end
end
if #missing > 1 then return missing end
redis.call('HSET', KEYS[1], 'current_stage', ARGV[2], 'last_updated', ARGV[3])
return {'ok'}
`;

/**
 * KEYS: project, outputs. ARGV: stage, output JSON, saved_at, then the stages before it in the
 * mode. When the flow's current stage is one of them and has no output of its own, nobody is
 * working there: the saved stage becomes the current one, so that the flow is where the work is
 * (seed 000's example saves s5 first thing, then asks for next). Otherwise next and goto move it.
 */
const SAVE_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'current_stage')
local idle = current and redis.call('HEXISTS', KEYS[2], current) == 0
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local fields = {'last_updated', ARGV[3]}
for i = 4, #ARGV do
  if idle and ARGV[i] == current then
    fields[#fields + 1] = 'current_stage'
    fields[#fields + 1] = ARGV[1]
    break
  end
end
redis.call('HSET', KEYS[1], unpack(fields))
return redis.call('HKEYS', KEYS[2])
`;

export type MoveOutcome = { kind: 'ok' } | { kind: 'conflict' } | { kind: 'missing'; stages: StageId[] };

/**
 * A project's keys, under `{sy:aceflow}`: one Redis Cluster slot for all of AceFlow, since opening
 * a project claims its workspace in the index every project shares, in the same script.
 * Names cannot hold ":", so no project's keys meet the workspace index.
 */
export function aceflowKeys(prefix: string, name: string) {
  const base = keyspace(prefix).group('aceflow');
  const project = `${base}:project:${name}`;
  return { project, analysis: `${project}:analysis`, outputs: `${project}:outputs`, prepared: `${project}:prepared`, workspaces: `${base}:workspaces` };
}

export class ProjectStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  /** @param options.prefix key prefix of the deployment (the queues' prefix) */
  constructor(options: { redis: Redis; prefix: string }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
  }

  keys(name: string) {
    return aceflowKeys(this.#prefix, name);
  }

  /**
   * The project, created with these values unless it exists; an existing one is returned as is.
   * `{ taken: owner }` when creating it would share the workspace of project `owner`.
   */
  async open(init: Omit<ProjectRecord, 'last_updated'>): Promise<ProjectRecord | { taken: string }> {
    const keys = this.keys(init.name);
    const [kind, ...rest] = (await this.#redis.eval(OPEN_SCRIPT, 2, keys.project, keys.workspaces, init.name, init.mode, init.workspace, init.created_at, init.current_stage)) as string[];
    if (kind === 'taken') return { taken: rest[0] ?? '' };
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < rest.length; i += 2) hash[rest[i] as string] = rest[i + 1] as string;
    return toRecord(hash);
  }

  async snapshot(name: string): Promise<ProjectSnapshot> {
    const keys = this.keys(name);
    const replies = await this.#redis.multi().hgetall(keys.project).hexists(keys.analysis, 'data').hkeys(keys.outputs).smembers(keys.prepared).exec();
    const [project, analysis, saved, prepared] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [Record<string, string>, number, string[], string[]];
    return {
      project: toRecord(project),
      analysisAvailable: analysis === 1,
      saved: new Set(saved.filter(isStageId)),
      prepared: new Set(prepared.filter(isStageId)),
    };
  }

  async readAnalysis(name: string): Promise<StoredAnalysis> {
    const [data, version, analysisId] = await this.#redis.hmget(this.keys(name).analysis, 'data', 'version', 'analysis_id');
    return { data: data ? (JSON.parse(data) as AnalysisData) : {}, version: version ?? '0', analysisId: analysisId ?? null };
  }

  /** Stores `data` when the analysis is still at `expectedVersion`; false when another write won. */
  async writeAnalysis(name: string, expectedVersion: string, data: AnalysisData, analysisId: string, now: string): Promise<boolean> {
    const keys = this.keys(name);
    const written = await this.#redis.eval(ANALYSIS_CAS_SCRIPT, 2, keys.analysis, keys.project, expectedVersion, JSON.stringify(data), analysisId, now);
    return written === 1;
  }

  /** Stores an output; returns the stages with a saved output afterwards, read in the same step. */
  /**
   * Stores `stage`'s output; when the flow's current stage is one of `before` (the stages ahead of
   * it) with no output of its own, `stage` becomes the current one. Answers the stages with an output.
   */
  async saveOutput(name: string, stage: StageId, output: StoredOutput, before: readonly StageId[] = []): Promise<Set<StageId>> {
    const keys = this.keys(name);
    const saved = (await this.#redis.eval(SAVE_SCRIPT, 2, keys.project, keys.outputs, stage, JSON.stringify(output), output.saved_at, ...before)) as string[];
    return new Set(saved.filter(isStageId));
  }

  async outputs(name: string, stages: readonly StageId[]): Promise<Map<StageId, StoredOutput>> {
    const found = new Map<StageId, StoredOutput>();
    if (stages.length === 0) return found;
    const raw = await this.#redis.hmget(this.keys(name).outputs, ...stages);
    stages.forEach((stage, index) => {
      const value = raw[index];
      if (value) found.set(stage, JSON.parse(value) as StoredOutput);
    });
    return found;
  }

  async markPrepared(name: string, stage: StageId): Promise<void> {
    await this.#redis.sadd(this.keys(name).prepared, stage);
  }

  /** Moves the current stage from `from` to `to` if it is still `from` and `required` are all saved. */
  async move(name: string, from: StageId, to: StageId, required: readonly StageId[], now: string): Promise<MoveOutcome> {
    const keys = this.keys(name);
    const [kind, ...stages] = (await this.#redis.eval(MOVE_SCRIPT, 2, keys.project, keys.outputs, from, to, now, ...required)) as string[];
    if (kind === 'ok') return { kind };
    if (kind === 'conflict') return { kind };
    return { kind: 'missing', stages: stages.filter(isStageId) };
  }
}

function toRecord(hash: Record<string, string>): ProjectRecord {
  const { name, mode, workspace, created_at, last_updated, current_stage } = hash;
  if (!name || !isMode(mode) || !workspace || !created_at || !last_updated || !isStageId(current_stage)) {
    throw new Error(`AceFlow project record is incomplete or corrupt: ${JSON.stringify(Object.keys(hash))}`);
  }
  return { name, mode, workspace, created_at, last_updated, current_stage };
}
