/**
 * Configuration of the orchestrator, parsed once at start-up.
 */
import { z } from 'zod';
import { commaList, loadEnv as load } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';

export const OrchestratorEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Accepted API keys; unset generates one under .data/ on first start (local use). */
  API_KEYS: commaList.optional(),
  REDIS_URL: z.string().min(1).optional(),
  QUEUE_PREFIX: z.string().regex(/^[\w{}:.-]+$/).default('sy'),
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  RUN_RETENTION_S: z.coerce.number().int().positive().default(7 * 24 * 3600),
  ...toolServicesEnvShape,
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
}

export function loadEnv(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  const env = load({ service: 'orchestrator', schema: OrchestratorEnv, source });
  return {
    port: env.PORT,
    host: env.HOST,
    apiKeys: env.API_KEYS && env.API_KEYS.length > 0 ? env.API_KEYS : undefined,
    redisUrl: env.REDIS_URL,
    prefix: env.QUEUE_PREFIX,
    logLevel: env.LOG_LEVEL,
    retentionSeconds: env.RUN_RETENTION_S,
    toolServices: toolServicesFromEnv(env),
  };
}
