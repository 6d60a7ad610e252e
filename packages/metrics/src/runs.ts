/**
 * Runs started and ended, by pipeline, and what ended runs cost: counted by whichever process records the change (the
 * orchestrator and the bridge start runs and cancel them; the workers complete and fail them), so
 * Prometheus sums each over the processes. Fed by the run store's observer. Pipelines past their
 * budget of names are counted as `other` (series-budget.ts).
 */
import { Counter, type Registry } from 'prom-client';
import type { MetricLabels } from './series-budget.js';

/** What the run store tells (see RunStoreOptions.observer in @switchyard/pipeline). */
export interface RunCounts {
  created(runs: { pipeline: string; count: number }): void;
  ended(run: { pipeline: string; status: string; costUsd?: number; batch?: boolean }): void;
}

export function runMetrics(registry: Registry, labels: Pick<MetricLabels, 'pipeline'>): RunCounts {
  const started = new Counter({ name: 'switchyard_runs_started_total', help: 'Runs recorded as queued, by pipeline.', labelNames: ['pipeline'], registers: [registry] });
  const ended = new Counter({ name: 'switchyard_runs_ended_total', help: 'Runs that ended, by pipeline and status (completed, failed, cancelled).', labelNames: ['pipeline', 'status'], registers: [registry] });
  // By batch or not, never by batch id (a label per batch would grow without bound): a batch's own cost is in its view.
  const cost = new Counter({ name: 'switchyard_runs_cost_usd_total', help: "USD the agent steps of ended runs cost, by pipeline and whether the run was a batch's (batch=\"true\"), counted as each run ends.", labelNames: ['pipeline', 'batch'], registers: [registry] });
  return {
    created: (runs) => started.inc({ pipeline: labels.pipeline(runs.pipeline) }, runs.count),
    ended: (run) => {
      const pipeline = labels.pipeline(run.pipeline);
      ended.inc({ pipeline, status: run.status });
      if (run.costUsd) cost.inc({ pipeline, batch: run.batch ? 'true' : 'false' }, run.costUsd);
    },
  };
}
