/**
 * A worker process. Until the stage queues exist it runs a preflight: its configuration parses,
 * Redis answers, and each configured tool service is healthy and publishes its tool.
 */
import { createLogger } from '@switchyard/logger';
import { pingRedis, resolveRedis } from '@switchyard/redis';
import { createStoryToolClients } from '@switchyard/tool-client';
import { TOOL_SERVICE_KEYS } from '@switchyard/contracts';
import { loadEnv } from './env.js';

const config = loadEnv();
const logger = createLogger({ name: 'workers', level: config.logLevel });
const redis = await resolveRedis({ url: config.redisUrl });
const clients = createStoryToolClients(config.toolServices);

let healthy = await pingRedis(redis.url);
logger.info({ redis: redis.url, ok: healthy }, 'redis');
for (const key of TOOL_SERVICE_KEYS) {
  const service = config.toolServices.services[key];
  const health = await clients[key].health();
  const published = health.healthy ? (await clients[key].listTools()).some((t) => t.name === service.tool) : false;
  logger.info({ service: key, url: service.url, mode: service.mode, healthy: health.healthy, published }, 'tool service');
  healthy &&= health.healthy && published;
}
await redis.stop();
process.exit(healthy ? 0 : 1);
