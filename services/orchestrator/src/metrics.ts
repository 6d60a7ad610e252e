/**
 * The orchestrator's metrics: the runs it starts and cancels, the SSE clients it serves, the
 * depth of every step queue (read from BullMQ at scrape time), its Redis round trip, and the
 * default process metrics, in a registry of its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { createMetricsRegistry, Gauge, metricLabels, redisMetrics, runMetrics, type Registry, type RunCounts, type SeriesLimits } from '@switchyard/metrics';
import { shippedStepNames, type PipelineQueues } from '@switchyard/pipeline';
import { redisUnavailable } from '@switchyard/redis';
import type { SseStreams } from './sse-streams.js';

/** The job states whose counts are published; a job's other states (completed, …) are history, not depth. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** How long a scrape waits for the queues' counts. */
const QUEUE_READ_TIMEOUT_MS = 1000;

export interface OrchestratorMetrics {
  registry: Registry;
  /** The run store's observer. */
  runs: RunCounts;
  /** Reads what is measured at scrape time from these. */
  watch(sources: { redis: Redis; queues: PipelineQueues; queueNames: readonly string[]; streams: SseStreams }): void;
}

/**
 * @param options.defaultMetrics the process metrics too (default true)
 * @param options.series budgets of pipeline names labelled (defaults: DEFAULT_SERIES_LIMITS)
 */
export function createOrchestratorMetrics(options: { defaultMetrics?: boolean; series?: SeriesLimits } = {}): OrchestratorMetrics {
  const registry = createMetricsRegistry(options);
  const labels = metricLabels(registry, { ...options.series, shipped: shippedStepNames() });
  return {
    registry,
    runs: runMetrics(registry, labels),
    watch({ redis, queues, queueNames, streams }) {
      redisMetrics(registry, redis);
      new Gauge({
        name: 'switchyard_sse_clients',
        help: 'Clients following run or batch events over SSE from this orchestrator now.',
        registers: [registry],
        collect() {
          this.set(streams.size);
        },
      });
      new Gauge({
        name: 'switchyard_queue_jobs',
        help: 'Jobs of each step queue (and the batch dispatcher) by state: waiting, active, delayed, failed.',
        labelNames: ['queue', 'state'],
        registers: [registry],
        async collect() {
          // While Redis is away a read would wait for it: the gauge is left out and the scrape still answers (switchyard_redis_up says why).
          // A job with a priority (every run's step, under flow control) waits in BullMQ's prioritized set: it is counted as waiting.
          const read = () => Promise.all(queueNames.map((name) => (name === queues.dispatch.name ? queues.dispatch : queues.steps.queue(name)).getJobCounts(...QUEUE_STATES, 'prioritized')));
          const counts = redisUnavailable(redis) ? null : await Promise.race([read(), sleep(QUEUE_READ_TIMEOUT_MS, null, { ref: false })]).catch(() => null);
          this.reset();
          if (!counts) return;
          queueNames.forEach((queue, i) => {
            for (const state of QUEUE_STATES) this.set({ queue, state }, (counts[i]?.[state] ?? 0) + (state === 'waiting' ? (counts[i]?.prioritized ?? 0) : 0));
          });
        },
      });
    },
  };
}
