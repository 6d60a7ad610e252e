/**
 * A worker process: runs every stage queue's worker against the configured Redis and tool
 * services until SIGTERM or SIGINT, then lets active stages finish (or hands them back).
 */
import { createLogger } from '@switchyard/logger';
import { createAceflowEngine } from '@switchyard/aceflow';
import { createRedisClient, resolveRedis, type RedisHandle, reportRedisOutagesTo } from '@switchyard/redis';
import { startTracing, type RunningTracing } from '@switchyard/telemetry';
import { createHttpStageWriter } from './aceflow/stage-writer.js';
import { loadEnv } from './env.js';
import { reportToolAccess } from './tool-access.js';
import { startWorkers, type RunningWorkers } from './start-workers.js';
import { createHttpTools } from './tools.js';

const config = loadEnv();
const logger = createLogger({ name: 'workers', level: config.logLevel });
reportRedisOutagesTo(logger);

const started: { redis?: RedisHandle; workers?: RunningWorkers; tracing?: RunningTracing } = {};
let stopping = false;
// Taken from the first moment: a stop during start-up has nothing active and simply exits.
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: finishing active stages');
  await started.workers?.close(config.shutdownGraceMs);
  await started.tracing?.shutdown();
  await started.redis?.stop();
  process.exit(0);
}
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));

// Before the workers and queues are made, so that they carry BullMQ's telemetry when tracing is on.
started.tracing = await startTracing({ service: 'workers', config: config.telemetry });
const redis = await resolveRedis({ url: config.redisUrl });
started.redis = redis;
const tools = createHttpTools(config.toolServices, {
  onRetry: (notice) => logger.warn({ notice }, 'tool call retried'),
});
const engineRedis = createRedisClient(redis.url);
const aceflow = {
  engine: createAceflowEngine({ redis: engineRedis, prefix: config.prefix, workspaceRoot: config.aceflow.workspaceRoot }),
  writer: createHttpStageWriter(config.toolServices),
  maxRegenerations: config.aceflow.maxRegenerations,
  maxDefectLoops: config.aceflow.maxDefectLoops,
};
started.workers = await startWorkers({
  aceflow,
  redisUrl: redis.url,
  prefix: config.prefix,
  tools,
  logger,
  queues: config.queues,
  defaultConcurrency: config.defaultConcurrency,
  lockDurationMs: config.lockDurationMs,
  stalledIntervalMs: config.stalledIntervalMs,
  retentionSeconds: config.retentionSeconds,
  budget: config.budget,
  reconcileIntervalMs: config.reconcileIntervalMs,
  retentionPassMs: config.retentionPassMs,
});
logger.info({ redis: redis.url, prefix: config.prefix, pid: process.pid }, 'workers ready');
void reportToolAccess(tools.clients, logger);
