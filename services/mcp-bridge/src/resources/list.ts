/**
 * `resources/list`, a page at a time: the first page holds the registered pipelines, then every
 * page holds runs from the run index (a sorted set by creation time), newest first, each with
 * its story when it wrote one and its batch. The cursor names the last run listed, so runs
 * created between two pages do not shift the next page; the listing stops after `maxRuns`. Runs
 * are read as summaries (their short fields), never with their input or result.
 */
import type { ListResourcesResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { PipelineStore, RunStore } from '@switchyard/pipeline';
import { uris } from './uris.js';

export interface ResourceListOptions {
  store: RunStore;
  pipelines: PipelineStore;
  /** Runs per page (default 50). */
  pageSize?: number;
  /** Runs listed in all, newest first (default 1000): older ones are read by URI. */
  maxRuns?: number;
  /** Pipelines on the first page (default 200). */
  maxPipelines?: number;
}

/** Where the next page starts: after run `after` (created at `score`), `listed` runs in. */
const Cursor = z.object({ after: z.string().regex(/^run_[0-9a-f]{32}$/), score: z.number(), listed: z.number().int().nonnegative() });
type Cursor = z.infer<typeof Cursor>;

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decode(raw: string): Cursor {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')));
  } catch {
    throw Object.assign(new Error('Invalid cursor: pass the nextCursor of an earlier resources/list'), { code: ErrorCode.InvalidParams, data: { cursor: raw } });
  }
}

export async function listResources(options: ResourceListOptions, rawCursor: string | undefined): Promise<ListResourcesResult> {
  const pageSize = options.pageSize ?? 50;
  const maxRuns = options.maxRuns ?? 1000;
  const cursor = rawCursor === undefined ? undefined : decode(rawCursor);
  const resources: Resource[] = cursor ? [] : await pipelineResources(options);

  const { redis, keys } = options.store;
  const listed = cursor?.listed ?? 0;
  const count = Math.min(pageSize, maxRuns - listed);
  if (count <= 0) return { resources };
  const start = cursor ? await startAfter(options.store, cursor) : 0;
  const page = await redis.zrevrange(keys.runIndex, start, start + count - 1, 'WITHSCORES');
  const ids: string[] = [];
  const scores: number[] = [];
  for (let i = 0; i + 1 < page.length; i += 2) {
    ids.push(page[i] as string);
    scores.push(Number(page[i + 1]));
  }
  const runs = await options.store.getSummaries(ids);
  const batches = new Set<string>();
  for (const run of runs) {
    if (!run) continue; // past its retention; the janitor drops it from the index
    // A completed story run's title is kept with it; another pipeline's result is no story.
    const title = run.status === 'completed' && run.kind === 'story' ? run.title : null;
    resources.push({
      uri: uris.run(run.run_id),
      name: run.run_id,
      title: `${run.pipeline?.name ?? run.kind} run, ${run.status}${title ? `: ${title}` : ''}`,
      description: `Run ${run.run_id} created ${run.created_at}: its status, progress, stages and result (the run view, as get_run answers it).`,
      mimeType: 'application/json',
      annotations: { lastModified: run.updated_at },
    });
    if (title) resources.push({ uri: uris.story(run.run_id), name: `${run.run_id}/story.md`, title, description: `The story of run ${run.run_id}, as Markdown.`, mimeType: 'text/markdown' });
    if (run.batch_id && !batches.has(run.batch_id)) {
      batches.add(run.batch_id);
      resources.push({ uri: uris.batch(run.batch_id), name: run.batch_id, title: `Batch ${run.batch_id}`, description: 'The batch: its counts by status and its runs.', mimeType: 'application/json' });
    }
  }
  const last = ids.length - 1;
  const more = ids.length === count && listed + ids.length < maxRuns && (await redis.zcard(keys.runIndex)) > start + ids.length;
  const lastId = ids[last];
  const lastScore = scores[last];
  return { resources, ...(more && lastId !== undefined && lastScore !== undefined ? { nextCursor: encode({ after: lastId, score: lastScore, listed: listed + ids.length }) } : {}) };
}

/** The index position after the cursor's run; if that run has left the index, after its creation time. */
async function startAfter(store: RunStore, cursor: Cursor): Promise<number> {
  const rank = await store.redis.zrevrank(store.keys.runIndex, cursor.after);
  if (rank !== null) return rank + 1;
  return store.redis.zcount(store.keys.runIndex, cursor.score, '+inf');
}

async function pipelineResources(options: ResourceListOptions): Promise<Resource[]> {
  const pipelines = (await options.pipelines.list()).slice(0, options.maxPipelines ?? 200);
  return pipelines.map((p) => ({
    uri: uris.pipeline(p.name),
    name: p.name,
    title: `Pipeline ${p.name} (version ${p.latest})`,
    description: p.description || `The ${p.name} pipeline: its latest definition and its versions.`,
    mimeType: 'application/json',
    annotations: { lastModified: p.registered_at },
  }));
}
