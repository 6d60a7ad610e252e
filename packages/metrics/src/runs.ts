/**
 * Runs started and ended, by pipeline: counted by whichever process records the change (the
 * orchestrator and the bridge start runs and cancel them; the workers complete and fail them), so
 * Prometheus sums each over the processes. Fed by the run store's observer. Pipelines past their
 * budget of names are counted as `other` (series-budget.ts).
 */
import { Counter, type Registry } from 'prom-client';
import type { MetricLabels } from './series-budget.js';

/** What the run store tells (see RunStoreOptions.observer in @switchyard/pipeline). */
export interface RunCounts {
  created(runs: { pipeline: string; count: number }): void;
  ended(run: { pipeline: string; status: string }): void;
}

export function runMetrics(registry: Registry, labels: Pick<MetricLabels, 'pipeline'>): RunCounts {
  const started = new Counter({ name: 'switchyard_runs_started_total', help: 'Runs recorded as queued, by pipeline.', labelNames: ['pipeline'], registers: [registry] });
  const ended = new Counter({ name: 'switchyard_runs_ended_total', help: 'Runs that ended, by pipeline and status (completed, failed, cancelled).', labelNames: ['pipeline', 'status'], registers: [registry] });
  return {
    created: (runs) => started.inc({ pipeline: labels.pipeline(runs.pipeline) }, runs.count),
    ended: (run) => ended.inc({ pipeline: labels.pipeline(run.pipeline), status: run.status }),
  };
}
