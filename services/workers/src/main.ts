/**
 * A worker process: runs every stage queue's worker against the configured Redis and tool
 * services until SIGTERM or SIGINT, then lets active stages finish (or hands them back).
 */
import { createLogger } from '@switchyard/logger';
import { resolveRedis } from '@switchyard/redis';
import { loadEnv } from './env.js';
import { startWorkers } from './start-workers.js';
import { createHttpStoryTools } from './story-tools.js';

const config = loadEnv();
const logger = createLogger({ name: 'workers', level: config.logLevel });

// Signals are taken from the first moment, so a stop during start-up is a clean stop too.
let stopRequested: string | undefined;
let stop: ((signal: string) => void) | undefined;
const onSignal = (signal: string) => (stop ? stop(signal) : (stopRequested = signal));
process.once('SIGTERM', () => onSignal('SIGTERM'));
process.once('SIGINT', () => onSignal('SIGINT'));

const redis = await resolveRedis({ url: config.redisUrl });
const tools = createHttpStoryTools(config.toolServices, {
  onRetry: (notice) => logger.warn({ notice }, 'tool call retried'),
});
const running = await startWorkers({
  redisUrl: redis.url,
  prefix: config.prefix,
  tools,
  logger,
  queues: config.queues,
  lockDurationMs: config.lockDurationMs,
  stalledIntervalMs: config.stalledIntervalMs,
  retentionSeconds: config.retentionSeconds,
});
logger.info({ redis: redis.url, prefix: config.prefix, pid: process.pid }, 'workers ready');

let stopping = false;
stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping: finishing active stages');
  void running
    .close(config.shutdownGraceMs)
    .then(() => redis.stop())
    .then(() => process.exit(0));
};
if (stopRequested) stop(stopRequested);
