/**
 * Configuration of the orchestrator, parsed once at start-up.
 */
import { z } from 'zod';
import { httpServiceConfig, httpServiceEnvShape, loadEnv as load, pipelineConfig, pipelineEnvShape } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { MAX_JSON_DEPTH } from '@switchyard/http-kit';
import { LogLevel } from '@switchyard/logger';
import { runLimitsConfig, runLimitsEnvShape, type RunLimits } from '@switchyard/pipeline';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';

export const OrchestratorEnv = z.object({
  ...httpServiceEnvShape(8080),
  ...pipelineEnvShape,
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  ...toolServicesEnvShape,
  ...telemetryEnvShape,
  /** What a run may hold and a listing page may carry (see packages/pipeline/src/limits.ts; docs/SECURITY.md). */
  ...runLimitsEnvShape,
  /** Deepest nesting of arrays and objects a JSON body may have (default 64): refused with 400 before it is parsed. */
  JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(1000).default(MAX_JSON_DEPTH),
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
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
  /** What a run may hold and a listing page may carry. */
  limits: RunLimits;
  /** Deepest nesting a JSON body may have. */
  jsonMaxDepth: number;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  const env = load({ service: 'orchestrator', schema: OrchestratorEnv, source });
  return {
    ...httpServiceConfig(env),
    ...pipelineConfig(env),
    logLevel: env.LOG_LEVEL,
    toolServices: toolServicesFromEnv(env),
    telemetry: telemetryConfig(env),
    limits: runLimitsConfig(env),
    jsonMaxDepth: env.JSON_MAX_DEPTH,
  };
}
