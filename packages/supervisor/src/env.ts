/**
 * Configuration of the Supervisor's admin script, parsed once at start-up: the same Redis and key
 * prefix as the services it administers.
 */
import { z } from 'zod';
import { clusterNodes, loadEnv as load, redisUrlOf, taggedPrefix } from '@switchyard/config';

export const SupervisorEnv = z.object({
  /** Redis to use; unset starts (or reuses) the local redis-server of `.data/redis`. */
  REDIS_URL: z.string().min(1).optional(),
  /** A Redis Cluster's seed nodes, `host:port,…` (as for the services). */
  REDIS_CLUSTER_NODES: clusterNodes.optional(),
  QUEUE_PREFIX: z.string().regex(/^(\{[\w:.-]+\}|[\w:.-]+)$/).default('sy'),
});

export function loadEnv(source: Record<string, string | undefined> = process.env): { redisUrl: string | undefined; prefix: string } {
  const env = load({ service: 'supervisor', schema: SupervisorEnv, source });
  return { redisUrl: redisUrlOf(env), prefix: taggedPrefix(env.QUEUE_PREFIX) };
}
