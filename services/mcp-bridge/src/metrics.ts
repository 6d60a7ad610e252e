/**
 * The bridge's metrics: its MCP sessions and tasks, the runs it starts and cancels, the calls of
 * the tool services' federated tools, its Redis round trip, and the default process metrics, in a
 * registry of its own. Served at `/metrics`.
 */
import type { Redis } from 'ioredis';
import { Counter, createMetricsRegistry, Gauge, metricLabels, redisMetrics, runMetrics, toolCallMetrics, type Registry, type RunCounts, type SeriesLimits, type ToolCallMetrics } from '@switchyard/metrics';
import { shippedStepNames } from '@switchyard/pipeline';

/** What a task store tells: a task entered `status` (`working` when it is created). */
export interface TaskObserver {
  entered(status: string): void;
}

export interface BridgeMetrics {
  registry: Registry;
  /** The run store's observer. */
  runs: RunCounts;
  tasks: TaskObserver;
  /** The federation clients' hooks (`onCallEnd`, `onRetry`). */
  tools: ToolCallMetrics;
  sessionOpened(): void;
  /** Reads what is measured at scrape time from these. */
  watch(sources: { redis: Redis; sessions: { size: number; tasksRunning: number } }): void;
}

/**
 * @param options.defaultMetrics the process metrics too (default true)
 * @param options.series budgets of pipeline and tool names labelled (defaults: DEFAULT_SERIES_LIMITS)
 */
export function createBridgeMetrics(options: { defaultMetrics?: boolean; series?: SeriesLimits } = {}): BridgeMetrics {
  const registry = createMetricsRegistry(options);
  const labels = metricLabels(registry, { ...options.series, shipped: shippedStepNames() });
  const opened = new Counter({ name: 'switchyard_mcp_sessions_opened_total', help: 'MCP sessions initialized on this bridge.', registers: [registry] });
  const tasks = new Counter({ name: 'switchyard_mcp_tasks_total', help: 'MCP tasks that entered each status on this bridge (working: created; input_required, completed, failed, cancelled).', labelNames: ['status'], registers: [registry] });
  return {
    registry,
    runs: runMetrics(registry, labels),
    tasks: { entered: (status) => tasks.inc({ status }) },
    tools: toolCallMetrics(registry, labels),
    sessionOpened: () => opened.inc(),
    watch({ redis, sessions }) {
      redisMetrics(registry, redis);
      new Gauge({
        name: 'switchyard_mcp_sessions',
        help: 'MCP sessions live in this bridge process now (sessions idle for 10 min leave memory, not Redis).',
        registers: [registry],
        collect() {
          this.set(sessions.size);
        },
      });
      new Gauge({
        name: 'switchyard_mcp_tasks_running',
        help: 'MCP tasks whose calls run in this bridge process now.',
        registers: [registry],
        collect() {
          this.set(sessions.tasksRunning);
        },
      });
    },
  };
}
