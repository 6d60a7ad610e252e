/**
 * Calls to tool services as the caller sees them (the tool client's `onCallEnd` and `onRetry`),
 * and each service's breaker: by service, tool, mode and outcome, every value from a fixed set
 * or the configured services' published tools (past their budget of names, `other`).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { MetricLabels } from './series-budget.js';
import { callOutcome, type BreakerState, type RetryNotice, type ToolCallRecord, type ToolServiceClient } from '@switchyard/tool-client';

const BREAKER_STATES: readonly BreakerState[] = ['closed', 'half-open', 'open'];

export interface ToolCallMetrics {
  /** Hand to ToolClientOptions.onCallEnd. */
  onCallEnd(record: ToolCallRecord): void;
  /** Hand to ToolClientOptions.onRetry (with any logging of your own). */
  onRetry(notice: RetryNotice): void;
  /** Reports these clients' breakers: the state now, and each change. One client per service. */
  watchBreakers(clients: Iterable<Pick<ToolServiceClient, 'service' | 'breakerState' | 'onBreakerStateChange'>>): void;
}

export function toolCallMetrics(registry: Registry, labels: Pick<MetricLabels, 'tool'>): ToolCallMetrics {
  const calls = new Counter({ name: 'switchyard_tool_calls_total', help: 'Tool calls made, by service, tool, mode and outcome (ok, or the kind of failure); retries within a call are one call.', labelNames: ['service', 'tool', 'mode', 'outcome'], registers: [registry] });
  const duration = new Histogram({
    name: 'switchyard_tool_call_duration_seconds',
    help: 'Time from a tool call to its result or last error, retries and polling included.',
    labelNames: ['service', 'tool', 'mode'],
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const retries = new Counter({ name: 'switchyard_tool_retries_total', help: 'Attempts of tool calls retried by the client, by service, tool and the failure retried.', labelNames: ['service', 'tool', 'reason'], registers: [registry] });
  const transitions = new Counter({ name: 'switchyard_tool_breaker_transitions_total', help: "Changes of a service's circuit breaker, by the state entered.", labelNames: ['service', 'state'], registers: [registry] });
  const watched = new Map<string, Pick<ToolServiceClient, 'breakerState'>>();
  new Gauge({
    name: 'switchyard_tool_breaker_state',
    help: "A service's circuit breaker: 1 for the state it is in (closed, half-open, open), 0 for the others.",
    labelNames: ['service', 'state'],
    registers: [registry],
    collect() {
      for (const [service, client] of watched) for (const state of BREAKER_STATES) this.set({ service, state }, client.breakerState === state ? 1 : 0);
    },
  });
  return {
    onCallEnd(record) {
      const named = labels.tool(record.service, record.tool);
      calls.inc({ ...named, mode: record.mode, outcome: record.outcome });
      duration.observe({ ...named, mode: record.mode }, record.seconds);
    },
    onRetry({ error }) {
      retries.inc({ ...(error.tool ? labels.tool(error.service, error.tool) : { service: error.service, tool: 'none' }), reason: callOutcome(error) });
    },
    watchBreakers(clients) {
      for (const client of clients) {
        watched.set(client.service, client);
        client.onBreakerStateChange((state) => transitions.inc({ service: client.service, state }));
      }
    },
  };
}
