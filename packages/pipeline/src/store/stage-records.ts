/**
 * A stage's record is five flat fields of its run's hash: `<stage>.status`, `.attempts`,
 * `.started_at`, `.finished_at` and `.error` (a RunError as JSON). The dot keeps them apart from
 * the run's own fields. Flat and in the run's hash, so that the stage scripts read and update a
 * stage and its run with one hash command each, without decoding and encoding JSON. An empty or
 * missing field reads as null (or 0 attempts, or `pending`).
 */
import type { RunError, StageStatus, StageView } from '@switchyard/contracts';
import { transcriptView } from './agent-transcript.js';

export type StageField = 'status' | 'attempts' | 'started_at' | 'finished_at' | 'error';

export const stageField = (stage: string, field: StageField) => `${stage}.${field}`;

/**
 * Stage names are written into event JSON by the scripts as they are, so they may hold only
 * characters that need no escaping. Every stage name comes from the job catalog.
 */
export const STAGE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export function readStageView(hash: Record<string, string | null | undefined>, name: string): StageView {
  const value = (field: StageField) => hash[stageField(name, field)] || null;
  const error = value('error');
  const iterations = hash[`${name}.iterations`];
  const agent = transcriptView(hash, name);
  const childRun = hash[`${name}.child_run`];
  // A step whose fallback stood in is done for the engine and failed for its readers.
  const fallback = hash[`${name}.fallback`];
  return {
    name,
    ...(iterations ? { iterations: Number(iterations) } : {}),
    status: fallback ? 'failed' : ((value('status') as StageStatus | null) ?? 'pending'),
    attempts: Number(value('attempts') ?? 0),
    started_at: value('started_at'),
    finished_at: value('finished_at'),
    error: error ? (JSON.parse(error) as RunError) : null,
    ...(agent ? { agent } : {}),
    ...(childRun ? { child_run: childRun } : {}),
    ...(fallback ? { fallback } : {}),
  };
}

/** The fields of `view` as HSET arguments (null written as an empty string). */
export function stageViewFields(view: StageView): Record<string, string> {
  return {
    [stageField(view.name, 'status')]: view.status,
    [stageField(view.name, 'attempts')]: String(view.attempts),
    [stageField(view.name, 'started_at')]: view.started_at ?? '',
    [stageField(view.name, 'finished_at')]: view.finished_at ?? '',
    [stageField(view.name, 'error')]: view.error ? JSON.stringify(view.error) : '',
  };
}
