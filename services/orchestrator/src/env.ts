/**
 * Configuration of the orchestrator, parsed once at start-up.
 */
import { z } from 'zod';
import { httpServiceConfig, httpServiceEnvShape, loadEnv as load, metricSeriesConfig, metricSeriesEnvShape, pipelineConfig, pipelineEnvShape } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';

export const OrchestratorEnv = z.object({
  ...httpServiceEnvShape(8080),
  ...pipelineEnvShape,
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  /** SSE streams (run and batch events) this process holds open at once, every key together; one more answers 503. */
  SSE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** SSE streams one API key may hold open at once in this process; one more answers 429. */
  SSE_MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(200),
  ...metricSeriesEnvShape,
  ...toolServicesEnvShape,
  ...telemetryEnvShape,
});

export interface OrchestratorConfig {
  port: number;
  host: string;
  apiKeys: string[] | undefined;
  redisUrl: string | undefined;
  prefix: string;
  logLevel: z.infer<typeof OrchestratorEnv>['LOG_LEVEL'];
  retentionSeconds: number;
  toolServices: ToolServicesConfig;
  /** Caps on open SSE streams. */
  sse: { maxStreams: number; maxStreamsPerKey: number };
  /** Budgets of user-defined names the metrics label. */
  metricSeries: { maxPipelines: number; maxStages: number; maxTools: number };
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  const env = load({ service: 'orchestrator', schema: OrchestratorEnv, source });
  return {
    ...httpServiceConfig(env),
    ...pipelineConfig(env),
    logLevel: env.LOG_LEVEL,
    toolServices: toolServicesFromEnv(env),
    sse: { maxStreams: env.SSE_MAX_STREAMS, maxStreamsPerKey: env.SSE_MAX_STREAMS_PER_KEY },
    metricSeries: metricSeriesConfig(env),
    telemetry: telemetryConfig(env),
  };
}
