/**
 * Starts the orchestrator: its Redis connection, queues and stores, the health check, the app.
 * `main.ts` uses it with the environment's configuration; tests and the local launcher too.
 */
import type { Express } from 'express';
import type { ApiKeyEntry } from '@switchyard/config';
import type { ToolServicesConfig } from '@switchyard/contracts';
import { BrowserSessions, createProbes, FailedKeyLimiter, KeyRing, listen, type BrowserSessionsOptions, type FailedKeyPolicy } from '@switchyard/http-kit';
import type { SeriesLimits } from '@switchyard/metrics';
import type { Logger } from '@switchyard/logger';
import { agentDirectory, RunWaits, BatchStore, createPipelineQueues, Notifier, PipelineStore, registerShippedPipelines, RunStore, ScheduleStore, StreamHub, type NotifyAllowList, type RunLimits, type ScheduleLimits } from '@switchyard/pipeline';
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
  /** Accepted keys: plain keys have every scope, parsed API_KEYS entries their own. */
  apiKeys: readonly (string | ApiKeyEntry)[];
  /** Dashboard sessions' lifetimes (defaults: 2 h idle, 24 h in all, 50 per key). */
  sessions?: Pick<BrowserSessionsOptions, 'idleMs' | 'maxMs' | 'perKey'>;
  /** Wrong keys allowed per client address and window (defaults: 10 a minute), and the proxies trusted to name the client (default none). */
  failedKeys?: FailedKeyPolicy;
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
  /** What a run may hold and a listing page may carry (default DEFAULT_RUN_LIMITS). */
  limits?: Partial<RunLimits>;
  /** Deepest nesting a JSON body may have (default MAX_JSON_DEPTH, 64). */
  jsonMaxDepth?: number;
  /** Caps on open SSE streams (defaults: 1000 in all, 200 per API key). */
  sse?: SseLimits;
  /** Budgets of user-defined names its metrics label (defaults: 20 pipelines besides the shipped ones). */
  metricSeries?: SeriesLimits;
  /**
   * What agent steps may name, for registration's checks: the configured models (default just
   * `default`, which always exists) and MCP servers (default none).
   */
  agentNames?: {
    models?: readonly string[];
    mcpServers?: readonly string[];
    /** The tools an MCP server lists now, undefined when it cannot be asked (see mcp-tool-names.ts); absent: MCP tools are checked when called. */
    mcpTools?: (server: string) => Promise<readonly string[] | undefined>;
  };
  /** How many schedules there may be and how large their input (defaults: 1000, 64 KiB). */
  scheduleLimits?: Partial<ScheduleLimits>;
  /** Where a run's or batch's `notify.url` may point (WEBHOOK_ALLOW; default none: `notify` is refused). */
  webhookAllow?: NotifyAllowList;
  /** The name its Redis connections give themselves (CLIENT SETNAME), as CLIENT LIST shows them (default `switchyard-orchestrator`). */
  redisClientName?: string;
}

export interface RunningOrchestrator {
  url: string;
  /** The Express app serving it: what a test reads to list the routes. */
  app: Express;
  /** From now on `/readyz` answers 503 `draining` (on SIGTERM, before `close`). */
  drain(): void;
  /** Stops taking requests, ends open event streams, releases Redis. */
  close(): Promise<void>;
}

export async function startOrchestrator(options: StartOrchestratorOptions): Promise<RunningOrchestrator> {
  const prefix = options.prefix ?? '{sy}';
  const redis = createRedisClient(options.redisUrl, { connectionName: options.redisClientName ?? 'switchyard-orchestrator' });
  const metrics = createOrchestratorMetrics({ series: options.metricSeries });
  const notifier = new Notifier({ redis, prefix, onError: (error) => options.logger.warn({ err: error }, 'owed webhooks could not be enqueued; the workers\' sweep will') });
  // A run cancelled here that owes a webhook has its delivery job added at once.
  const store = new RunStore({ redis, prefix, retentionSeconds: options.retentionSeconds, observer: metrics.runs, limits: options.limits, onNotifyOwed: notifier.owed });
  const queues = createPipelineQueues({ connection: redis, prefix });
  // A deleted version is kept for the runs that had started on it as long as their records are.
  const pipelines = new PipelineStore({ redis, prefix, keepDeletedSeconds: store.retentionSeconds });
  await registerShippedPipelines(pipelines);
  const schedules = new ScheduleStore({ redis, prefix, limits: options.scheduleLimits });
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
  const queueNames = configuredQueueNames(tools.services());
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
  const access = {
    keys: new KeyRing(options.apiKeys),
    sessions: new BrowserSessions({ redis, prefix, ...options.sessions }),
    failedKeys: new FailedKeyLimiter({ redis, prefix, limit: options.failedKeys?.limit, windowMs: options.failedKeys?.windowMs, onError: (error) => options.logger.warn({ err: error }, 'a wrong key could not be counted') }),
    trustProxy: options.failedKeys?.trustProxy,
  };
  const agents = agentDirectory({ pipelines, models: options.agentNames?.models ?? ['default'], mcpServers: options.agentNames?.mcpServers ?? [], mcpTools: options.agentNames?.mcpTools });
  const waits = new RunWaits({ redis, keys: store.keys, prefix });
  const probes = createProbes({ redis });
  const app = createApp({ store, batches: new BatchStore(store), queues, pipelines, schedules, waits, notify: { allow: options.webhookAllow ?? { entries: [] }, notifier }, tools, agents, redis, ...access, logger: options.logger, health, streams, heartbeatMs: options.heartbeatMs, queueBoard, metrics: metrics.registry, jsonMaxDepth: options.jsonMaxDepth, hub, probes });
  const listening = await listen(app, { port: options.port ?? 0, host: options.host });
  return {
    url: listening.url,
    app,
    drain: () => probes.drain(),
    async close() {
      streams.endAll();
      hub.close();
      await listening.close();
      await queues.close();
      await schedules.close();
      await notifier.close();
      await queueBoard.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
