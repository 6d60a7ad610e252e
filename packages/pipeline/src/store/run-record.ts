/**
 * A run as readers see it (`getRun`, the API's run view, MCP resources): made from the run's
 * hash, or from a compacted run's kept fields with its archived ones under them (run-archive.ts).
 */
import type { RunError, RunStatus, StageView } from '@switchyard/contracts';
import { RawJson } from './raw-json.js';
import { readStageView } from './stage-records.js';
import { FlowTag } from '../catalog.js';

export interface RunRecord {
  id: string;
  kind: string;
  status: RunStatus;
  created_at: string;
  updated_at: string;
  batch_id: string | null;
  request: unknown;
  /** The pipeline and version the run was started with. */
  pipeline: { name: string; version: number } | null;
  stages: StageView[];
  progress: number;
  result: unknown;
  error: RunError | null;
  /** The run and stage whose agent started this run as a tool call (see the workers' child-runs.ts). */
  parent?: { run_id: string; stage: string } | undefined;
  /** USD the run's agent stages cost; absent when it has none. */
  cost_usd?: number | undefined;
  /** Its flow control as recorded when it was created (absent for runs created before there was any). */
  flow?: FlowTag | undefined;
}

/** A run's `flow` field, or undefined when absent or unreadable. */
export function flowOf(text: string | null | undefined): FlowTag | undefined {
  if (!text) return undefined;
  try {
    const parsed = FlowTag.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function parseJson(value: string | undefined | null): unknown {
  return value ? JSON.parse(value) : null;
}

/**
 * The run a hash's fields describe; null when they describe none (no id: gone, or never created).
 * With `raw`, its request and result are left as the JSON text they are stored as (RawJson), for a
 * reader that sends them on as they are (see stringifyWithRaw).
 */
export function runRecordOf(hash: Record<string, string>, options: { raw?: boolean } = {}): RunRecord | null {
  if (!hash.id) return null;
  const names = parseJson(hash.stage_names) as string[];
  const stages = names.map((name) => readStageView(hash, name));
  // Counted as the engine counts them: a failed step whose fallback stood in is done.
  const completed = names.filter((name) => hash[`${name}.status`] === 'completed' || hash[`${name}.status`] === 'skipped').length;
  return {
    id: hash.id,
    kind: hash.kind ?? 'story',
    status: hash.status as RunStatus,
    created_at: hash.created_at ?? '',
    updated_at: hash.updated_at ?? '',
    batch_id: hash.batch_id || null,
    request: options.raw ? new RawJson(hash.request || 'null') : parseJson(hash.request),
    pipeline: hash.pipeline ? { name: hash.pipeline, version: Number(hash.pipeline_version) } : null,
    stages,
    progress: stages.length === 0 ? 0 : Math.round((100 * completed) / stages.length),
    result: options.raw && hash.result ? new RawJson(hash.result) : parseJson(hash.result),
    error: parseJson(hash.error) as RunError | null,
    ...(hash.parent ? { parent: parentOf(hash.parent) } : {}),
    ...(hash.flow ? { flow: flowOf(hash.flow) } : {}),
    ...costOf(stages),
  };
}

/** The run's cost: its agent stages' (a map's branches each one of them), when it has any. */
function costOf(stages: readonly StageView[]): { cost_usd: number } | Record<string, never> {
  const agents = stages.flatMap((stage) => (stage.agent ? [stage.agent.cost_usd] : []));
  return agents.length > 0 ? { cost_usd: agents.reduce((sum, cost) => sum + cost, 0) } : {};
}

function parentOf(text: string): { run_id: string; stage: string } {
  const { run_id, stage } = JSON.parse(text) as { run_id: string; stage: string };
  return { run_id, stage };
}
