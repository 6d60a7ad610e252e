/**
 * What agent steps count, for /metrics: tokens by model and kind, their cost by model, model-call latency, and tool
 * calls by tool and outcome. Model names are the configuration's (MODELS is bounded); tool names
 * are the definitions', counted within the tool series budget (METRICS_MAX_TOOLS).
 */
import { Counter, Histogram, type MetricLabels, type Registry } from '@switchyard/metrics';

export interface AgentMetrics {
  turn(observation: { model: string; seconds: number; promptTokens: number; completionTokens: number; costUsd?: number | null; outcome: 'ok' | 'error' }): void;
  toolCall(observation: { tool: string; outcome: string }): void;
}

export function agentMetrics(registry: Registry, labels: MetricLabels): AgentMetrics {
  const tokens = new Counter({ name: 'switchyard_agent_tokens_total', help: 'Model tokens agent steps spent, by model and kind (prompt, completion)', labelNames: ['model', 'kind'], registers: [registry] });
  const latency = new Histogram({ name: 'switchyard_agent_model_call_seconds', help: "Seconds of an agent's model turns, retries included, by model and outcome", labelNames: ['model', 'outcome'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120], registers: [registry] });
  const cost = new Counter({ name: 'switchyard_agent_cost_usd_total', help: "USD agent steps' model turns cost, by model (by its MODELS prices; a model without prices is not counted)", labelNames: ['model'], registers: [registry] });
  const calls = new Counter({ name: 'switchyard_agent_tool_calls_total', help: "Agents' tool calls by tool and outcome (ok, failed, refused, retried)", labelNames: ['tool', 'outcome'], registers: [registry] });
  return {
    turn({ model, seconds, promptTokens, completionTokens, costUsd, outcome }) {
      const m = model;
      latency.observe({ model: m, outcome }, seconds);
      if (promptTokens > 0) tokens.inc({ model: m, kind: 'prompt' }, promptTokens);
      if (completionTokens > 0) tokens.inc({ model: m, kind: 'completion' }, completionTokens);
      if (costUsd) cost.inc({ model: m }, costUsd);
    },
    toolCall({ tool, outcome }) {
      calls.inc({ tool: labels.tool('agent', tool).tool, outcome });
    },
  };
}

/**
 * 429s the models answered, by model: each paused its model for every worker (model-rate-limits.ts).
 * Model names are the configuration's, so the label is bounded (MODELS has at most 32, and `default`).
 */
export function modelRateMetrics(registry: Registry): { rateLimited(model: string): void } {
  const refused = new Counter({ name: 'switchyard_model_rate_limited_total', help: 'Model requests refused with 429 (each pausing its model for every worker), by model', labelNames: ['model'], registers: [registry] });
  return {
    rateLimited(model) {
      refused.inc({ model });
    },
  };
}
