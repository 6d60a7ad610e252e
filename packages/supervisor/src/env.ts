/**
 * Configuration of the Supervisor's admin script, parsed once at start-up: the same Redis and key
 * prefix as the services it administers.
 */
import { z } from 'zod';
import { loadEnv as load } from '@switchyard/config';

export const SupervisorEnv = z.object({
  /** Redis to use; unset starts (or reuses) the local redis-server of `.data/redis`. */
  REDIS_URL: z.string().min(1).optional(),
  QUEUE_PREFIX: z.string().regex(/^[\w{}:.-]+$/).default('sy'),
});

export function loadEnv(source: Record<string, string | undefined> = process.env): { redisUrl: string | undefined; prefix: string } {
  const env = load({ service: 'supervisor', schema: SupervisorEnv, source });
  return { redisUrl: env.REDIS_URL, prefix: env.QUEUE_PREFIX };
}
