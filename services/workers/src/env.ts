/**
 * Configuration of a worker process, parsed once at start-up: where Redis is, where the tool
 * services are and how to call each (sync, async or stream).
 */
import { z } from 'zod';
import { loadEnv as load } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';

export const WorkersEnv = z.object({
  /** Redis to use; unset starts a local redis-server (development). */
  REDIS_URL: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  ...toolServicesEnvShape,
});

export interface WorkersConfig {
  redisUrl: string | undefined;
  logLevel: z.infer<typeof WorkersEnv>['LOG_LEVEL'];
  toolServices: ToolServicesConfig;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): WorkersConfig {
  const env = load({ service: 'workers', schema: WorkersEnv, source });
  return { redisUrl: env.REDIS_URL, logLevel: env.LOG_LEVEL, toolServices: toolServicesFromEnv(env) };
}
