/**
 * Pages of runs, newest first: each run as a summary read from the short fields every run keeps
 * in its hash, compacted or not (one HMGET a run, never its input or result), and, when asked
 * (`fields`), what its own URL answers too, read a few runs at a time as the JSON text it is stored
 * as. A page holds at most `limit` runs and about `limits.listPageBytes` bytes: it stops before the
 * run that would pass them (it always holds one), and says where the next page starts.
 */
import type { Redis } from 'ioredis';
import { KeyedPipeline } from '@switchyard/redis';
import { RUN_LABEL_CHARS, type PageMarks, type RunStatus, type RunSummary } from '@switchyard/contracts';
import type { RunKeys } from './keys.js';
import type { RunLimits } from './limits.js';
import { withinBudget } from './page-budget.js';
import { readRunFields } from './run-archive.js';
import { rawJsonBytes } from './raw-json.js';
import { runRecordOf } from './run-record.js';
import { runLinks, toRunView } from './run-view.js';

/** What a listing may add to each summary: what the run's own URL answers. */
export const RUN_FIELDS = ['request', 'result', 'stages', 'error'] as const;
export type RunField = (typeof RUN_FIELDS)[number];

export interface RunListQuery {
  offset: number;
  limit: number;
  status?: RunStatus | undefined;
  pipeline?: string | undefined;
  fields?: readonly RunField[] | undefined;
}

export interface RunListStore {
  redis: Redis;
  keys: RunKeys;
  limits: Readonly<RunLimits>;
  getStatuses(ids: readonly string[]): Promise<(RunStatus | null)[]>;
}

/** The newest runs looked through for a page, filters included. */
const MAX_SCANNED = 10_000;
/** Runs read whole at a time when `fields` asks for more than the summary: the budget is checked between reads. */
const FULL_READS_AT_ONCE = 5;

/** The hash fields a summary is made of: all among those a compacted run keeps (KEPT_RUN_FIELDS). */
const SUMMARY_FIELDS = ['id', 'kind', 'status', 'created_at', 'updated_at', 'batch_id', 'pipeline', 'pipeline_version', 'stage_count', 'completed_stages', 'topic', 'title', 'parent'] as const;

/** A label cut to RUN_LABEL_CHARS characters (never through a surrogate pair), an ellipsis saying it was. */
export function runLabel(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= RUN_LABEL_CHARS) return trimmed;
  return `${trimmed.slice(0, RUN_LABEL_CHARS - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

/** The preview of a run's input a listing shows: its topic, title, name or project's name. */
export function inputTopic(input: unknown): string | null {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return null;
  const fields = input as Record<string, unknown>;
  const project = fields.project && typeof fields.project === 'object' ? (fields.project as Record<string, unknown>).name : undefined;
  for (const candidate of [fields.topic, fields.title, fields.name, project]) if (typeof candidate === 'string' && candidate.trim() !== '') return runLabel(candidate);
  return null;
}

/** The title of a run's result a listing shows (a story's), or null. */
export function resultTitle(result: unknown): string | null {
  const title = result && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>).title : undefined;
  return typeof title === 'string' && title.trim() !== '' ? runLabel(title) : null;
}

/** A child run's parent, as its view gives it (a run started by an agent's call of a pipeline). */
function parentOf(text: string | null): { parent: { run_id: string; stage: string } } | Record<string, never> {
  if (!text) return {};
  const { run_id, stage } = JSON.parse(text) as { run_id: string; stage: string };
  return { parent: { run_id, stage } };
}

function summaryOf(values: readonly (string | null)[]): RunSummary | null {
  const field = (name: (typeof SUMMARY_FIELDS)[number]) => values[SUMMARY_FIELDS.indexOf(name)] ?? null;
  const id = field('id');
  const status = field('status') as RunStatus | null;
  if (!id || !status) return null;
  const total = Number(field('stage_count') ?? 0);
  const done = Number(field('completed_stages') ?? 0);
  const progress = total === 0 ? 0 : Math.round((100 * Math.min(done, total)) / total);
  const name = field('pipeline');
  return {
    run_id: id,
    kind: field('kind') ?? 'story',
    status,
    // As the run's view says it: 100 once completed, never before.
    progress: status === 'completed' ? 100 : Math.min(progress, 99),
    created_at: field('created_at') ?? '',
    updated_at: field('updated_at') ?? '',
    batch_id: field('batch_id') || null,
    pipeline: name ? { name, version: Number(field('pipeline_version')) } : null,
    topic: field('topic') || null,
    title: field('title') || null,
    ...parentOf(field('parent')),
    ...runLinks(id),
  };
}

/** Up to `count` ids of runs that pass the filters after skipping `offset` of them; ids whose run is gone leave the index. */
async function chooseRuns(store: RunListStore, query: RunListQuery, count: number): Promise<string[]> {
  const chosen: string[] = [];
  const gone: string[] = [];
  let skipped = 0;
  for (let start = 0; chosen.length < count && start < MAX_SCANNED; start += 500) {
    const ids = await store.redis.zrevrange(store.keys.runIndex, start, start + 499);
    if (ids.length === 0) break;
    const facts = await listFacts(store, ids, query.pipeline !== undefined);
    ids.forEach((id, i) => {
      const { status, pipeline } = facts[i] ?? { status: null, pipeline: null };
      if (!status) gone.push(id);
      else if (query.status && status !== query.status) return;
      else if (query.pipeline !== undefined && pipeline !== query.pipeline) return;
      else if (skipped < query.offset) skipped += 1;
      else if (chosen.length < count) chosen.push(id);
    });
  }
  if (gone.length > 0) await store.redis.zrem(store.keys.runIndex, ...gone);
  return chosen;
}

/** What listing filters on, of many runs in one round trip; the pipeline only when asked. */
async function listFacts(store: RunListStore, ids: readonly string[], withPipeline: boolean): Promise<{ status: RunStatus | null; pipeline: string | null }[]> {
  if (!withPipeline) return (await store.getStatuses(ids)).map((status) => ({ status, pipeline: null }));
  const pipeline = new KeyedPipeline(store.redis);
  for (const id of ids) pipeline.on(store.keys.run(id)).hmget(store.keys.run(id), 'status', 'pipeline');
  return (await pipeline.execOrThrow()).map((values) => {
    const [status, name] = (values as (string | null)[] | null) ?? [];
    return { status: (status as RunStatus | null | undefined) ?? null, pipeline: name ?? null };
  });
}

/** The summaries of runs by id, one round trip per master; null for a run that is gone. */
export async function readSummaries(store: RunListStore, ids: readonly string[]): Promise<(RunSummary | null)[]> {
  if (ids.length === 0) return [];
  const pipeline = new KeyedPipeline(store.redis);
  for (const id of ids) pipeline.on(store.keys.run(id)).hmget(store.keys.run(id), ...SUMMARY_FIELDS);
  return (await pipeline.execOrThrow()).map((values) => summaryOf((values as (string | null)[] | null) ?? []));
}

/** The summary with the fields asked for, read from the whole run (its input and result as stored text). */
async function withFields(store: RunListStore, summary: RunSummary, fields: readonly RunField[]): Promise<RunSummary> {
  const run = runRecordOf(await readRunFields(store.redis, store.keys, summary.run_id), { raw: true });
  if (!run) return summary;
  const view = toRunView(run);
  const wanted = new Set(fields);
  return {
    ...summary,
    ...(wanted.has('request') ? { request: view.request } : {}),
    ...(wanted.has('stages') ? { stages: view.stages } : {}),
    ...(wanted.has('result') ? { result: view.result } : {}),
    ...(wanted.has('error') ? { error: view.error } : {}),
  };
}

/**
 * A page of runs. The input and result of runs read with `fields` are RawJson: write the page with
 * stringifyWithRaw.
 */
export async function listRunPage(store: RunListStore, query: RunListQuery): Promise<{ runs: RunSummary[] } & PageMarks> {
  // One more than the page: whether a next page exists.
  const chosen = await chooseRuns(store, query, query.limit + 1);
  const more = chosen.length > query.limit;
  const summaries = (await readSummaries(store, chosen.slice(0, query.limit))).filter((s): s is RunSummary => s !== null);
  const fields = query.fields ?? [];
  const budget = store.limits.listPageBytes;
  if (fields.length === 0) {
    const page = withinBudget(summaries, { budget, offset: query.offset, more });
    return { runs: page.items, next_offset: page.next_offset, truncated: page.truncated };
  }
  // Whole runs are read a few at a time, and no more once the budget is spent.
  const runs: RunSummary[] = [];
  let bytes = 0;
  for (let at = 0; at < summaries.length; at += FULL_READS_AT_ONCE) {
    const read = await Promise.all(summaries.slice(at, at + FULL_READS_AT_ONCE).map((summary) => withFields(store, summary, fields)));
    for (const run of read) {
      const size = rawJsonBytes(run) + 1;
      if (runs.length > 0 && bytes + size > budget) return { runs, next_offset: query.offset + runs.length, truncated: true };
      bytes += size;
      runs.push(run);
    }
  }
  return { runs, next_offset: more ? query.offset + runs.length : null, truncated: false };
}
