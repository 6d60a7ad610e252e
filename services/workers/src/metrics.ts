/**
 * A worker process's metrics: the runs it ends, its stages, its tool calls and breakers, its
 * Redis round trip, and the default process metrics, in a registry of its own. Served on
 * METRICS_PORT by main.ts.
 */
import { createMetricsRegistry, metricLabels, runMetrics, toolCallMetrics, type MetricLabels, type Registry, type RunCounts, type SeriesLimits, type ToolCallMetrics } from '@switchyard/metrics';
import { shippedStepNames } from '@switchyard/pipeline';
import { StageMetrics } from './stage-metrics.js';
import { QueueWaitMetrics } from './queue-wait-metrics.js';

export interface WorkerMetrics {
  registry: Registry;
  /** The run store's observer. */
  runs: RunCounts;
  stages: StageMetrics;
  /** How long step jobs waited, by queue, priority and fair-share key. */
  queueWaits: QueueWaitMetrics;
  /** The tool clients' hooks (`onCallEnd`, `onRetry`) and their breakers. */
  tools: ToolCallMetrics;
  /** The bounded labels of user-defined names, for metrics made elsewhere (agent steps'). */
  labels: MetricLabels;
}

/**
 * @param options.defaultMetrics the process metrics too (default true)
 * @param options.series budgets of pipeline, stage and tool names labelled (defaults: DEFAULT_SERIES_LIMITS)
 */
export function createWorkerMetrics(options: { defaultMetrics?: boolean; series?: SeriesLimits } = {}): WorkerMetrics {
  const registry = createMetricsRegistry(options);
  const labels = metricLabels(registry, { ...options.series, shipped: shippedStepNames() });
  return { registry, labels, runs: runMetrics(registry, labels), stages: new StageMetrics(registry, labels), queueWaits: new QueueWaitMetrics(registry, labels), tools: toolCallMetrics(registry, labels) };
}
