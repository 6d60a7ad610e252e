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


/** A run's flow control as shown (why it waits is added by whoever looks at its queues: flow/waiting.ts). */
export function flowView(flow: FlowTag): RunFlowView {
  return { priority: flow.priority, key: flow.key, ...(flow.weight === undefined ? {} : { weight: flow.weight }), ...(flow.gate ? { concurrency: flow.gate } : {}) };
}

const SETTLED = ['completed', 'skipped', 'failed', 'cancelled'];

export function toRunView(run: RunRecord): RunView {
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
    ...(run.flow ? { flow: flowView(run.flow) } : {}),
    ...(run.cost_usd === undefined ? {} : { cost_usd: run.cost_usd }),
    ...runLinks(run.id),
  };
}
