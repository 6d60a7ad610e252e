/**
 * One Prometheus registry per process part, never prom-client's global one: a test that runs the
 * orchestrator, workers and a bridge in one Node process gets three registries that cannot
 * collide, and each `/metrics` answers for its own part only.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric of ours is named `switchyard_…`; the default process metrics keep their standard names. */
export const METRIC_PREFIX = 'switchyard_';

export interface MetricsRegistryOptions {
  /** Add prom-client's default process metrics (`process_*`, `nodejs_*`). Default true. */
  defaultMetrics?: boolean;
}

export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}
