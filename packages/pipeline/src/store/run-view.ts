/**
 * How a run is shown (the run view every API and the bridge answer with, its links) and found
 * by id: what the stores, the engine and the services all read, so it depends on none of them.
 */
import { TERMINAL_STATUSES, type RunFlowView, type RunView } from '@switchyard/contracts';
import type { FlowTag } from '../catalog.js';
import type { RunRecord } from './run-record.js';

export const runLinks = (runId: string) => ({ poll_url: `/v1/runs/${runId}`, events_url: `/v1/runs/${runId}/events` });
export const batchLinks = (batchId: string) => ({ poll_url: `/v1/batches/${batchId}`, events_url: `/v1/batches/${batchId}/events` });

/** Ids are generated here; anything else cannot name a run or batch. */
export const RUN_ID = /^run_[0-9a-f]{32}$/;
export const BATCH_ID = /^batch_[0-9a-f]{32}$/;


/** Who looks at a run: the id of its API key (none: a deployment without keys), and whether that key holds `admin`. */
export interface RunViewer {
  keyId?: string | undefined;
  admin: boolean;
}

/** What another caller's run shows as its fair-share key: an API key's id is shown only to that key and to admin keys. */
export const HIDDEN_CALLER_KEY = 'key:other';

/** The fair-share key as `viewer` may see it: `key:<API key id>` of another key is hidden (no viewer: hidden too). */
export function shownFlowKey(key: string, viewer: RunViewer | undefined): string {
  if (!key.startsWith('key:') || key === 'key:-' || viewer?.admin) return key;
  return viewer?.keyId !== undefined && key === `key:${viewer.keyId}` ? key : HIDDEN_CALLER_KEY;
}

/** A run's flow control as shown to `viewer` (why it waits is added by whoever looks at its queues: flow/waiting.ts). */
export function flowView(flow: FlowTag, viewer?: RunViewer): RunFlowView {
  return { priority: flow.priority, key: shownFlowKey(flow.key, viewer), ...(flow.weight === undefined ? {} : { weight: flow.weight }), ...(flow.gate ? { concurrency: flow.gate } : {}) };
}

const SETTLED = ['completed', 'skipped', 'failed', 'cancelled'];

/** The run as `viewer` sees it (another caller's API key id hidden from a key without `admin`). */
export function toRunView(run: RunRecord, viewer?: RunViewer): RunView {
  const ended = TERMINAL_STATUSES.includes(run.status);
  return {
    run_id: run.id,
    kind: run.kind,
    status: run.status,
    progress: run.status === 'completed' ? 100 : Math.min(run.progress, 99),
    created_at: run.created_at,
    updated_at: run.updated_at,
    batch_id: run.batch_id,
    pipeline: run.pipeline,
    request: run.request,
    // Once a run has ended, a stage that never finished will not: show it as cancelled.
    stages: run.stages.map((s) => (ended && !SETTLED.includes(s.status) ? { ...s, status: 'cancelled' } : s)),
    result: run.result,
    error: run.error,
    ...(run.parent ? { parent: run.parent } : {}),
    ...(run.flow ? { flow: flowView(run.flow, viewer) } : {}),
    ...(run.cost_usd === undefined ? {} : { cost_usd: run.cost_usd }),
    ...runLinks(run.id),
  };
}
