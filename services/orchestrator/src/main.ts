/**
 * The orchestrator process: the HTTP API on PORT. It only records runs and enqueues jobs; the
 * stage work is done by worker processes on the same Redis.
 */
import path from 'node:path';
import { configuredOrLocalKeys } from '@switchyard/http-kit';
import { createLogger } from '@switchyard/logger';
import { armCrashPoint, closeExpressionSandbox, configureExpressionSandbox } from '@switchyard/pipeline';
import { REPO_ROOT, reportRedisOutagesTo, resolveRedis } from '@switchyard/redis';
import { startTracing } from '@switchyard/telemetry';
import { loadEnv } from './env.js';
import { mcpSourcesOf, mcpToolNames } from './mcp-tool-names.js';
import { startOrchestrator } from './server.js';

const config = loadEnv();
armCrashPoint(config.crashPoint);
const logger = createLogger({ name: 'orchestrator', level: config.logLevel });
reportRedisOutagesTo(logger);
// Before the queues are made, so that they carry BullMQ's telemetry when tracing is on.
const tracing = await startTracing({ service: 'orchestrator', config: config.telemetry });
await configureExpressionSandbox(config.expressions);
const apiKeys = configuredOrLocalKeys(config.apiKeys, path.join(REPO_ROOT, '.data'));
const redis = await resolveRedis({ url: config.redisUrl });
const mcpSources = mcpSourcesOf(config.mcp.servers, { maxTools: config.mcp.maxTools });
const running = await startOrchestrator({
  redisUrl: redis.url,
  prefix: config.prefix,
  apiKeys,
  sessions: config.sessions,
  failedKeys: config.failedKeys,
  toolServices: config.toolServices,
  logger,
  port: config.port,
  host: config.host,
  retentionSeconds: config.retentionSeconds,
  limits: config.limits,
  scheduleLimits: config.scheduleLimits,
  webhookAllow: config.webhookAllow,
  jsonMaxDepth: config.jsonMaxDepth,
  sse: config.sse,
  metricSeries: config.metricSeries,
  agentNames: { models: [...config.models.keys()], mcpServers: config.mcpServers, mcpTools: mcpToolNames(mcpSources) },
});
logger.info({ url: running.url, redis: redis.url, prefix: config.prefix }, 'orchestrator listening');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: no new requests');
  running.drain();
  await running.close();
  await Promise.all([...mcpSources.values()].map((source) => source.close()));
  await closeExpressionSandbox();
  await tracing.shutdown();
  await redis.stop();
  process.exit(0);
}
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));
