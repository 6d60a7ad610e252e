/**
 * The bridge's resource URIs, one scheme for all: `switchyard://runs/{run_id}` (the run view),
 * `…/story.md` (a finished story), `switchyard://batches/{batch_id}`, and
 * `switchyard://pipelines/{name}` with `…/versions/{version}`. Parsing checks each id against
 * the pattern its store generates, so nothing else reaches a Redis key.
 */
import { BATCH_ID, PIPELINE_NAME, RUN_ID } from '@switchyard/pipeline';

export const SCHEME = 'switchyard://';

export const TEMPLATES = {
  run: `${SCHEME}runs/{run_id}`,
  story: `${SCHEME}runs/{run_id}/story.md`,
  batch: `${SCHEME}batches/{batch_id}`,
  pipeline: `${SCHEME}pipelines/{name}`,
  pipelineVersion: `${SCHEME}pipelines/{name}/versions/{version}`,
} as const;

export const uris = {
  run: (runId: string) => `${SCHEME}runs/${runId}`,
  story: (runId: string) => `${SCHEME}runs/${runId}/story.md`,
  batch: (batchId: string) => `${SCHEME}batches/${batchId}`,
  pipeline: (name: string) => `${SCHEME}pipelines/${name}`,
  pipelineVersion: (name: string, version: number) => `${SCHEME}pipelines/${name}/versions/${version}`,
};

export type ResourceTarget =
  | { kind: 'run'; runId: string }
  | { kind: 'story'; runId: string }
  | { kind: 'batch'; batchId: string }
  | { kind: 'pipeline'; name: string }
  | { kind: 'pipelineVersion'; name: string; version: number };

/** What `uri` names, or undefined when it names nothing this bridge serves. */
export function parseResourceUri(uri: string): ResourceTarget | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const parts = uri.slice(SCHEME.length).split('/');
  const [collection, id, sub, version, ...rest] = parts;
  if (rest.length > 0 || id === undefined) return undefined;
  if (collection === 'runs' && RUN_ID.test(id)) {
    if (sub === undefined) return { kind: 'run', runId: id };
    if (sub === 'story.md' && version === undefined) return { kind: 'story', runId: id };
  }
  if (collection === 'batches' && BATCH_ID.test(id) && sub === undefined) return { kind: 'batch', batchId: id };
  if (collection === 'pipelines' && PIPELINE_NAME.test(id)) {
    if (sub === undefined) return { kind: 'pipeline', name: id };
    if (sub === 'versions' && version !== undefined && /^[1-9]\d{0,8}$/.test(version)) return { kind: 'pipelineVersion', name: id, version: Number(version) };
  }
  return undefined;
}
