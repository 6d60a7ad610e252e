/**
 * What `completion/complete` offers, read from where each thing lives: run ids from the run index
 * (the newest `recentRuns`, prefix-matched), batch ids from those runs, pipeline names and
 * versions from the pipeline store, AceFlow stage ids from the engine's list and its projects
 * from the workspace index, Supervisor projects from the Supervisor's project index. Every answer holds
 * at most 100 values, the spec's limit.
 */
import type { Redis } from 'ioredis';
import { aceflowKeys, STAGE_IDS } from '@switchyard/aceflow';
import { KeyedPipeline } from '@switchyard/redis';
import type { PipelineStore, RunStore } from '@switchyard/pipeline';
import type { SupervisorStore } from '@switchyard/supervisor';

export const MAX_VALUES = 100;

export interface CompletionSourceOptions {
  redis: Redis;
  /** The deployment's key prefix (the suites' too). */
  prefix: string;
  store: RunStore;
  pipelines: PipelineStore;
  supervisor: Pick<SupervisorStore, 'listProjects'>;
  /** How many of the newest runs run ids are completed from (default 1000). */
  recentRuns?: number;
}

export interface CompletionSources {
  runIds(value: string): Promise<string[]>;
  batchIds(value: string): Promise<string[]>;
  pipelineNames(value: string): Promise<string[]>;
  pipelineVersions(name: string | undefined, value: string): Promise<string[]>;
  stageIds(value: string): string[];
  aceflowProjects(value: string): Promise<string[]>;
  supervisorProjects(value: string): Promise<string[]>;
}

/** Case-insensitive prefix match, in the given order, at most MAX_VALUES. */
export function matching(values: Iterable<string>, value: string): string[] {
  const wanted = value.toLowerCase();
  const out: string[] = [];
  for (const candidate of values) {
    if (!candidate.toLowerCase().startsWith(wanted) || out.includes(candidate)) continue;
    out.push(candidate);
    if (out.length >= MAX_VALUES) break;
  }
  return out;
}

export function completionSources(options: CompletionSourceOptions): CompletionSources {
  const { redis, store, pipelines, supervisor } = options;
  const recent = () => redis.zrevrange(store.keys.runIndex, 0, (options.recentRuns ?? 1000) - 1);

  return {
    async runIds(value) {
      // "run_3f…" and "3f…" both name the run whose id starts so.
      const typed = value.startsWith('run_') ? value : `run_${value}`;
      return matching(await recent(), typed);
    },
    async batchIds(value) {
      const ids = await recent();
      const pipeline = new KeyedPipeline(redis);
      for (const id of ids) pipeline.on(store.keys.run(id)).hget(store.keys.run(id), 'batch_id');
      const batches = (await pipeline.execOrThrow()).filter((batch): batch is string => typeof batch === 'string' && batch.length > 0);
      return matching(batches, value.startsWith('batch_') ? value : `batch_${value}`);
    },
    async pipelineNames(value) {
      return matching((await pipelines.list()).map((p) => p.name), value);
    },
    async pipelineVersions(name, value) {
      if (!name) return [];
      const versions = await pipelines.versions(name);
      return matching(versions.map((v) => String(v.definition.version)).reverse(), value);
    },
    stageIds(value) {
      // "s3", "s3_test" and "test" all find s3_testcases.
      const byName = STAGE_IDS.filter((id) => id.slice(id.indexOf('_') + 1).startsWith(value.toLowerCase()));
      return matching([...STAGE_IDS.filter((id) => id.startsWith(value.toLowerCase())), ...byName], '');
    },
    async aceflowProjects(value) {
      const names = await redis.hvals(aceflowKeys(options.prefix, '').workspaces);
      return matching([...new Set(names)].sort(), value);
    },
    async supervisorProjects(value) {
      return matching((await supervisor.listProjects()).map((p) => p.name), value);
    },
  };
}
