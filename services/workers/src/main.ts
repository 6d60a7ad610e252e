/**
 * A worker process: runs every stage queue's worker against the configured Redis and tool
 * services until SIGTERM or SIGINT, then lets active stages finish (or hands them back).
 */
import { createProbes, type Probes } from '@switchyard/http-kit';
import { createLogger } from '@switchyard/logger';
import { armCrashPoint, closeExpressionSandbox, configureExpressionSandbox, toolQueue } from '@switchyard/pipeline';
import { startEventLoopWatchdog, startMetricsServer, type MetricsServer } from '@switchyard/metrics';
import { createAceflowEngine } from '@switchyard/aceflow';
import { checkRedis, createRedisClient, resolveRedis, type RedisHandle, reportRedisOutagesTo } from '@switchyard/redis';
import { startTracing, type RunningTracing } from '@switchyard/telemetry';
import { ToolUnavailableError, type RetryNotice } from '@switchyard/tool-client';
import { createHttpStageWriter } from './aceflow/stage-writer.js';
import { loadEnv } from './env.js';
import { createWorkerMetrics } from './metrics.js';
import { reportToolAccess } from './tool-access.js';
import { startWorkers, type RunningWorkers } from './start-workers.js';
import { createHttpTools } from './tools.js';
import { ModelClient } from '@switchyard/models';
import { startMcpSources } from './agent/mcp-sources.js';
import { ModelRateLimits } from './agent/model-rate-limits.js';
import { modelRateMetrics } from './agent/agent-metrics.js';

const config = loadEnv();
armCrashPoint(config.crashPoint);
const logger = createLogger({ name: 'workers', level: config.logLevel });
reportRedisOutagesTo(logger);
// A worker whose event loop stalls holds its jobs' locks without renewing them: better replaced.
startEventLoopWatchdog({ stallMs: config.eventLoopStallMs, name: 'workers' });

let probes: Probes | undefined;
const started: { redis?: RedisHandle; workers?: RunningWorkers; tracing?: RunningTracing; metrics?: MetricsServer } = {};
let stopping = false;
// Taken from the first moment: a stop during start-up has nothing active and simply exits.
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Not ready from now on (the metrics server still answers /livez): it takes no new job and ends its active ones.
  probes?.drain();
  logger.info({ signal }, 'stopping: finishing active stages');
  await started.workers?.close(config.shutdownGraceMs);
  await started.metrics?.close();
  await closeExpressionSandbox();
  await started.tracing?.shutdown();
  await started.redis?.stop();
  process.exit(0);
}
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));

// Before the workers and queues are made, so that they carry BullMQ's telemetry when tracing is on.
started.tracing = await startTracing({ service: 'workers', config: config.telemetry });
await configureExpressionSandbox(config.expressions);
const redis = await resolveRedis({ url: config.redisUrl });
started.redis = redis;
const metrics = createWorkerMetrics({ series: config.metricSeries });
const toolHooks = {
  onCallEnd: metrics.tools.onCallEnd,
  onRetry: (notice: RetryNotice) => {
    metrics.tools.onRetry(notice);
    logger.warn({ notice }, 'tool call retried');
    pauseOn429(notice);
  },
};
/** A service's 429 with Retry-After starts none of its queue's jobs on any worker for that long (the call itself waits it out). */
function pauseOn429(notice: RetryNotice): void {
  const error = notice.error;
  if (!(error instanceof ToolUnavailableError) || error.status !== 429 || !error.retryAfterMs) return;
  started.workers?.pauseQueue(toolQueue(error.service), error.retryAfterMs).catch((err: unknown) => logger.warn({ err, service: error.service }, 'could not pause the service\'s queue after its 429'));
}
const tools = createHttpTools(config.toolServices, toolHooks);
metrics.tools.watchBreakers(Object.values(tools.clients));
const engineRedis = createRedisClient(redis.url);
const aceflow = {
  engine: createAceflowEngine({ redis: engineRedis, prefix: config.prefix, workspaceRoot: config.aceflow.workspaceRoot }),
  writer: createHttpStageWriter(config.toolServices, toolHooks),
  maxRegenerations: config.aceflow.maxRegenerations,
  maxDefectLoops: config.aceflow.maxDefectLoops,
};
// Served before any job is taken, so that a port in use stops start-up; /health and /readyz say 503 until the workers listen.
let listening = false;
if (config.metrics) {
  const { port, host } = config.metrics;
  const health = async () => {
    if (!listening) return { healthy: false, body: { status: 'starting', pid: process.pid } };
    const check = await checkRedis(engineRedis);
    return { healthy: check.healthy, body: { status: check.healthy ? 'healthy' : 'degraded', redis: check, pid: process.pid } };
  };
  probes = createProbes({ redis: engineRedis, serving: () => listening });
  if (stopping) probes.drain();
  started.metrics = await startMetricsServer({ registry: metrics.registry, port, host, health, probes }).catch((error: unknown) => {
    logger.fatal({ err: error, config: 'METRICS_PORT' }, `cannot serve metrics on ${host}:${port}`);
    return process.exit(2);
  });
  logger.info({ url: `${started.metrics.url}/metrics` }, 'metrics served');
}
// Every model's rate limit and 429 pauses, shared with every other worker through Redis.
const rateMetrics = modelRateMetrics(metrics.registry);
const gate = new ModelRateLimits({
  redis: engineRedis,
  prefix: config.prefix,
  onRateLimited: (model) => {
    rateMetrics.rateLimited(model);
    logger.warn({ model }, 'the model answered 429: it is paused for every worker');
  },
  onError: (error, model) => logger.warn({ err: error, model }, 'a reply\'s tokens could not be charged to its model\'s rate limit'),
});
const models = new ModelClient({ models: config.models, ...config.modelClient, gate });
const mcp = await startMcpSources({ ...config.mcp, logger });
started.workers = await startWorkers({
  agents: { models, mcp },
  aceflow,
  redisUrl: redis.url,
  prefix: config.prefix,
  tools,
  logger,
  queues: config.queues,
  defaultConcurrency: config.defaultConcurrency,
  lockDurationMs: config.lockDurationMs,
  lockRenewMs: config.lockRenewMs,
  stalledIntervalMs: config.stalledIntervalMs,
  retentionSeconds: config.retentionSeconds,
  budget: config.budget,
  contentFlushMs: config.contentFlushMs,
  dispatchAhead: config.dispatchAhead,
  reconcileIntervalMs: config.reconcileIntervalMs,
  retentionPassMs: config.retentionPassMs,
  compaction: config.compaction,
  limits: config.limits,
  ...(config.webhooks ? { webhooks: config.webhooks } : {}),
  metrics,
});
listening = true;
logger.info({ redis: redis.url, prefix: config.prefix, pid: process.pid }, 'workers ready');
void reportToolAccess(tools.clients, logger);
