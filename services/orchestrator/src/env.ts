/**
 * Configuration of the orchestrator, parsed once at start-up.
 */
import { z } from 'zod';
import { expressionEnvShape, expressionSandboxConfig, httpServiceConfig, httpServiceEnvShape, loadEnv as load, pipelineConfig, pipelineEnvShape } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';

export const OrchestratorEnv = z.object({
  ...httpServiceEnvShape(8080),
  ...pipelineEnvShape,
  ...expressionEnvShape,
  LOG_LEVEL: z.enum(LogLevel).default('info'),
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
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
  /** The budget of user expressions (EXPRESSION_*). */
  expressions: ReturnType<typeof expressionSandboxConfig>;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  const env = load({ service: 'orchestrator', schema: OrchestratorEnv, source });
  return {
    ...httpServiceConfig(env),
    ...pipelineConfig(env),
    logLevel: env.LOG_LEVEL,
    toolServices: toolServicesFromEnv(env),
    telemetry: telemetryConfig(env),
    expressions: expressionSandboxConfig(env),
  };
}
