/**
 * A worker process's metrics: the runs it ends, its stages, its tool calls and breakers, its
 * Redis round trip, and the default process metrics, in a registry of its own. Served on
 * METRICS_PORT by main.ts.
 */
import { createMetricsRegistry, runMetrics, toolCallMetrics, type Registry, type RunCounts, type ToolCallMetrics } from '@switchyard/metrics';
import { StageMetrics } from './stage-metrics.js';

export interface WorkerMetrics {
  registry: Registry;
  /** The run store's observer. */
  runs: RunCounts;
  stages: StageMetrics;
  /** The tool clients' hooks (`onCallEnd`, `onRetry`) and their breakers. */
  tools: ToolCallMetrics;
}

export function createWorkerMetrics(options: { defaultMetrics?: boolean } = {}): WorkerMetrics {
  const registry = createMetricsRegistry(options);
  return { registry, runs: runMetrics(registry), stages: new StageMetrics(registry), tools: toolCallMetrics(registry) };
}
