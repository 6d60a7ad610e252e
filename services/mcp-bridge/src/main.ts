/**
 * The bridge's HTTP process: Streamable HTTP at /mcp on PORT, with sessions kept in Redis so that
 * a restarted bridge, or another replica, takes them up. Keys are the orchestrator's.
 */
import path from 'node:path';
import { configuredOrLocalKeys } from '@switchyard/http-kit';
import { createLogger } from '@switchyard/logger';
import { closeExpressionSandbox, configureExpressionSandbox } from '@switchyard/pipeline';
import { REPO_ROOT, resolveRedis, reportRedisOutagesTo } from '@switchyard/redis';
import { startTracing } from '@switchyard/telemetry';
import { loadEnv } from './env.js';
import { configuredSuites } from './configured-suites.js';
import { createBridgeMetrics } from './metrics.js';
import { startBridgeHttp } from './http/serve.js';

const config = loadEnv();
const logger = createLogger({ name: 'mcp-bridge', level: config.logLevel });
reportRedisOutagesTo(logger);
// Before the queues are made, so that the runs the bridge starts are traced when tracing is on.
const tracing = await startTracing({ service: 'mcp-bridge', config: config.telemetry });
await configureExpressionSandbox(config.expressions);
const apiKeys = configuredOrLocalKeys(config.apiKeys, path.join(REPO_ROOT, '.data'));
const redis = await resolveRedis({ url: config.redisUrl });
const metrics = createBridgeMetrics({ series: config.metricSeries });
const configured = await configuredSuites(config, logger, { onCallEnd: metrics.tools.onCallEnd, onRetry: metrics.tools.onRetry });
const extraSuites = configured.suites;
const running = await startBridgeHttp({
  redisUrl: redis.url,
  prefix: config.prefix,
  retentionSeconds: config.retentionSeconds,
  limits: config.limits,
  scheduleLimits: config.scheduleLimits,
  aceflowRoot: config.aceflowRoot,
  supervisorRoot: config.supervisorRoot,
  resourcePageSize: config.resourcePageSize,
  conformanceFixtures: config.conformanceFixtures,
  toolServices: config.toolServices,
  extraSuites,
  apiKeys,
  failedKeys: config.failedKeys,
  allowedOrigins: config.allowedOrigins,
  sessionTtlSeconds: config.sessionTtlSeconds,
  sessionLimits: config.sessionLimits,
  maxInitializeBytes: config.maxInitializeBytes,
  eventTtlSeconds: config.eventTtlSeconds,
  authorizationServers: config.authorizationServers,
  publicUrl: config.publicUrl,
  logger,
  port: config.port,
  host: config.host,
  metrics,
});
logger.info({ url: running.mcpUrl, redis: redis.url, prefix: config.prefix, tools: running.deps.tools.size }, 'mcp-bridge listening');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: sessions stay in Redis for the next bridge');
  running.app.probes.drain();
  await running.close();
  await configured.close();
  await closeExpressionSandbox();
  await tracing.shutdown();
  await redis.stop();
  process.exit(0);
}
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));
