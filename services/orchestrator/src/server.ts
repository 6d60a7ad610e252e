/**
 * Starts the orchestrator: its Redis connection, queues and stores, the health check, the app.
 * `main.ts` uses it with the environment's configuration; tests and the local launcher too.
 */
import type { Express } from 'express';
import type { ToolServicesConfig } from '@switchyard/contracts';
import { listen } from '@switchyard/http-kit';
import type { SeriesLimits } from '@switchyard/metrics';
import type { Logger } from '@switchyard/logger';
import { BatchStore, createPipelineQueues, kindQueue, PipelineStore, QUEUES, registerShippedPipelines, RunStore, STEP_KINDS, StreamHub, toolQueue } from '@switchyard/pipeline';
import { checkRedis, createRedisClient, isConnectionError, redisUnavailable } from '@switchyard/redis';
import { serviceDirectory } from '@switchyard/tool-client';
import { createApp } from './app.js';
import { configuredQueueNames, createQueueBoard } from './dashboard/queue-board.js';
import type { HealthReport } from './deps.js';
import { createOrchestratorMetrics } from './metrics.js';
import { SseStreams, type SseLimits } from './sse-streams.js';

export interface StartOrchestratorOptions {
  redisUrl: string;
  /** BullMQ prefix and run-store namespace (default "sy"). */
  prefix?: string;
  apiKeys: readonly string[];
  toolServices: ToolServicesConfig;
  logger: Logger;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seconds a finished run stays readable (default 7 days). */
  retentionSeconds?: number;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  heartbeatMs?: number;
  /** Caps on open SSE streams (defaults: 1000 in all, 200 per API key). */
  sse?: SseLimits;
  /** Budgets of user-defined names its metrics label (defaults: 20 pipelines besides the shipped ones). */
  metricSeries?: SeriesLimits;
  /** The name its Redis connections give themselves (CLIENT SETNAME), as CLIENT LIST shows them (default `switchyard-orchestrator`). */
  redisClientName?: string;
}

export interface RunningOrchestrator {
  url: string;
  /** The Express app serving it: what a test reads to list the routes. */
  app: Express;
  /** Stops taking requests, ends open event streams, releases Redis. */
  close(): Promise<void>;
}

export async function startOrchestrator(options: StartOrchestratorOptions): Promise<RunningOrchestrator> {
  const prefix = options.prefix ?? '{sy}';
  const redis = createRedisClient(options.redisUrl, { connectionName: options.redisClientName ?? 'switchyard-orchestrator' });
  const metrics = createOrchestratorMetrics({ series: options.metricSeries });
  const store = new RunStore({ redis, prefix, retentionSeconds: options.retentionSeconds, observer: metrics.runs });
  const queues = createPipelineQueues({ connection: redis, prefix });
  const pipelines = new PipelineStore({ redis, prefix });
  await registerShippedPipelines(pipelines);
  const tools = serviceDirectory(options.toolServices);
  const { clients, urls } = tools;
  const streams = new SseStreams(options.sse);
  // Every SSE client's live events come through this one reader. While Redis is away its reads
  // fail at each retry: said once a minute, and not at all when the outage line says it already.
  let warnedAt = 0;
  const hub = new StreamHub({
    redis,
    onError: (error) => {
      if (isConnectionError(error) || Date.now() - warnedAt < 60_000) return;
      warnedAt = Date.now();
      options.logger.warn({ err: error }, 'reading the followed event streams failed; retrying');
    },
  });
  const queueNames = [...tools.services().map(toolQueue), ...STEP_KINDS.map((kind) => kindQueue(kind)), QUEUES.dispatch];
  metrics.watch({ redis, queues, queueNames, streams });

  // While Redis is known to be down the report is degraded whatever the services say, and it must
  // be out within a second: the services are then reported as last checked, not asked again.
  let lastServices: HealthReport['services'] = {};
  const health = async (): Promise<HealthReport> => {
    const redisCheck = await checkRedis(redis);
    if (redisUnavailable(redis)) return { status: 'degraded', redis: redisCheck, services: lastServices };
    const entries = await Promise.all(
      Object.entries(clients).map(async ([key, client]) => {
        const result = await client.health();
        return [key, { healthy: result.healthy, url: urls[key] ?? '', latency_ms: result.latencyMs, ...(result.error ? { error: result.error } : {}) }] as const;
      }),
    );
    lastServices = Object.fromEntries(entries);
    const healthy = redisCheck.healthy && entries.every(([, s]) => s.healthy);
    return { status: healthy ? 'healthy' : 'degraded', redis: redisCheck, services: lastServices };
  };

  const queueBoard = createQueueBoard({ redis, prefix, queueNames: configuredQueueNames(tools.services()) });
  const app = createApp({ store, batches: new BatchStore(store), queues, pipelines, tools, redis, apiKeys: options.apiKeys, logger: options.logger, health, streams, heartbeatMs: options.heartbeatMs, queueBoard, metrics: metrics.registry, hub });
  const listening = await listen(app, { port: options.port ?? 0, host: options.host });
  return {
    url: listening.url,
    app,
    async close() {
      streams.endAll();
      hub.close();
      await listening.close();
      await queues.close();
      await queueBoard.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
