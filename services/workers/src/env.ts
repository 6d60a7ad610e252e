/**
 * Configuration of a worker process, parsed once at start-up: where Redis is, the queue prefix,
 * how much each stage queue takes at once, and where the tool services are and how to call them.
 */
import { z } from 'zod';
import { expressionEnvShape, expressionSandboxConfig, loadEnv as load, metricSeriesConfig, metricSeriesEnvShape, pipelineConfig, pipelineEnvShape } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';
import { mcpServersEnvShape, type McpServersConfig } from '@switchyard/mcp-tools';
import { modelClientOptionsFromEnv, modelsEnvShape, ModelsConfigError, parseModelsConfig, type ModelClientOptions, type ModelsConfig } from '@switchyard/models';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';
import type { StageBudget } from './stage-budget.js';
import { CONTENT_FLUSH_MS } from './engine/content-coalescer.js';
import { DEFAULT_DISPATCH_AHEAD } from './dispatch.js';
import { AGENT_QUEUE, kindQueue, MAX_STAGE_ATTEMPTS, parseAllowList, QUEUES, runLimitsConfig, runLimitsEnvShape, toolQueue, webhookAllowEnvShape, type RunLimits } from '@switchyard/pipeline';
import { DEFAULT_WEBHOOK_RESPONSE_MAX_BYTES, DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookSettings } from './notify-delivery.js';

const positiveInt = (max: number) => z.coerce.number().int().positive().max(max);
/** `N/MS`: at most N jobs per MS milliseconds, e.g. `20/1000`. */
const rate = z
  .string()
  .regex(/^\d+\/\d+$/, 'expected N/MS, e.g. 20/1000')
  .transform((v) => {
    const [max, duration] = v.split('/').map(Number) as [number, number];
    return { max, duration };
  });

/**
 * Queues with settings of their own: one per story service (`tool-<service>`), AceFlow's step
 * kind, the batch dispatcher and the agent queue. Other services' queues take WORKER_CONCURRENCY.
 * The agent queue's jobs are model turns (a stream waiting on the network, as a tool call does)
 * and agents' MCP and pipeline calls: I/O, so it takes WORKER_CONCURRENCY (200) like the tool
 * queues unless AGENT_QUEUE_CONCURRENCY says otherwise; a model's own rate limit is its MODELS
 * entry's, not the queue's (AGENT_QUEUE_RATE would limit every model and call together).
 */
const QUEUE_KEYS = ['search', 'outline', 'writing', 'editing', 'dispatch', 'aceflow', 'agent'] as const;
type QueueKey = (typeof QUEUE_KEYS)[number];
const QUEUE_NAMES: Record<QueueKey, string> = {
  search: toolQueue('search'),
  outline: toolQueue('outline'),
  writing: toolQueue('writing'),
  editing: toolQueue('editing'),
  dispatch: QUEUES.dispatch,
  aceflow: kindQueue('aceflow.stage'),
  agent: AGENT_QUEUE,
};
const perQueue = Object.fromEntries(
  QUEUE_KEYS.flatMap((key) => [
    [`${key.toUpperCase()}_QUEUE_CONCURRENCY`, positiveInt(1000).optional()],
    [`${key.toUpperCase()}_QUEUE_RATE`, rate.optional()],
  ]),
) as Record<string, z.ZodOptional<z.ZodType>>;

export const WorkersEnv = z.object({
  ...pipelineEnvShape,
  ...expressionEnvShape,
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  /**
   * Jobs a process runs at once per step queue, unless a queue's own variable says otherwise.
   * A step mostly waits on its tool service, so this is in the hundreds: sized from
   * `npm run bench -- realistic` (docs/OPERATIONS.md, "Sizing workers").
   */
  WORKER_CONCURRENCY: positiveInt(1000).default(200),
  /**
   * How long a job's lock lasts without renewal: a SIGKILLed worker's jobs are free at most this
   * long after the kill. Default 7000, chosen with `npm run chaos -- worker-kill-rate` and the
   * realistic bench (docs/PERFORMANCE.md, "Failover").
   */
  LOCK_DURATION_MS: positiveInt(600_000).default(7000),
  /**
   * How often a live worker's locks are renewed: each every half of this to all of it, so a worker
   * whose event loop is held (or starved of CPU) for LOCK_DURATION_MS minus this loses its jobs to
   * another. Default 1500 (5.5 s of tolerance); a renewal costs Redis a few µs per active job.
   */
  LOCK_RENEW_MS: positiveInt(300_000).default(1500),
  /**
   * How often a queue's jobs whose lock has lapsed are put back to wait (one check per queue for
   * all processes, each reading the queue's active list). A dead worker's job is taken over within
   * LOCK_DURATION_MS + STALLED_INTERVAL_MS of the kill. Default 1000.
   */
  STALLED_INTERVAL_MS: positiveInt(600_000).default(1000),
  /** How often the retention janitor prunes the run index and cleans finished jobs. */
  RETENTION_PASS_MS: positiveInt(3_600_000).default(60_000),
  /** How often ended runs are compacted into their archives (see compactor.ts). */
  COMPACT_INTERVAL_MS: positiveInt(3_600_000).default(5000),
  /**
   * How long after its end a run is compacted: clients following it read its end from the live
   * stream meanwhile (a later reader finds the same events, under the same ids, in the archive).
   */
  COMPACT_AFTER_MS: z.coerce.number().int().nonnegative().max(24 * 3_600_000).default(10_000),
  /**
   * How often runs left without a live job are looked for (default 30000). No longer tied to
   * STALLED_INTERVAL_MS: a sweep reads every run in flight, and a stalled job is put back by BullMQ.
   */
  RECONCILE_INTERVAL_MS: positiveInt(3_600_000).default(30_000),
  /** Attempts a stage may spend on real failed calls before its run fails (see stage-budget.ts). */
  STAGE_MAX_ATTEMPTS: positiveInt(MAX_STAGE_ATTEMPTS).default(3),
  /** How long a stage may wait, in all, for services whose breaker is open, before its run fails. */
  STAGE_MAX_BREAKER_WAIT_MS: positiveInt(24 * 3600_000).default(600_000),
  /**
   * How long a streamed stage's first buffered chunk waits for others before they are written as
   * one `content` event: fewer events cost less CPU in the worker and in Redis, at the price of
   * text arriving in steps of this size (see docs/OPERATIONS.md, "Sizing workers").
   */
  CONTENT_FLUSH_MS: z.coerce.number().int().min(0).max(5000).default(CONTENT_FLUSH_MS),
  /**
   * Rounds of a key's fair share (its waiting jobs ÷ its weight) a batch keeps waiting in its
   * pipeline's queues before its dispatcher waits to add more: what lets two batches of one
   * caller take turns (docs/OPERATIONS.md, "Flow control"). Default 1000.
   */
  DISPATCH_AHEAD: positiveInt(1_000_000).default(DEFAULT_DISPATCH_AHEAD),
  /** On SIGTERM, how long active stages may take to finish before they are handed back. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().max(600_000).default(25_000),
  /**
   * How long the event loop may be blocked before the process kills itself to be replaced
   * (no lock renewal, cancel or shutdown runs meanwhile). Default 5 s: below the 5.5 s after which
   * a held loop loses its jobs' locks (LOCK_DURATION_MS minus LOCK_RENEW_MS), so that a stalled
   * process is gone before another worker takes its jobs, and never runs one beside it. 0 turns
   * the watchdog off.
   */
  EVENT_LOOP_STALL_MS: z.coerce.number().int().nonnegative().max(600_000).default(5000),
  /**
   * Tests only: the crash point (packages/pipeline/src/crash-points.ts) at which this process
   * kills itself with SIGKILL. Unset (always, in production): no point is armed.
   */
  SWITCHYARD_CRASH_POINT: z.string().regex(/^[a-z0-9.-]+$/).max(100).optional(),
  /** Where AceFlow project workspaces live (default `.data/aceflow`). */
  ACEFLOW_WORKSPACE_ROOT: z.string().min(1).optional(),
  ACEFLOW_MAX_REGENERATIONS: z.coerce.number().int().min(0).max(10).default(2),
  ACEFLOW_MAX_DEFECT_LOOPS: z.coerce.number().int().min(0).max(10).default(2),
  /**
   * Port of this process's `GET /metrics` (Prometheus) and `GET /health`; unset: none served. Off by
   * default because several worker processes usually share a host, and one fixed port would stop
   * the second; give each its own (the launcher does), or `0` for a free one (logged).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Interface the metrics port binds (default 127.0.0.1; 0.0.0.0 in a container). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  ...metricSeriesEnvShape,
  ...perQueue,
  ...toolServicesEnvShape,
  /** The models agent steps call (LLM_*, MODELS; default: the offline model at MODEL_SERVICE_URL). See @switchyard/models. */
  ...modelsEnvShape,
  /** MCP servers whose tools agent steps may call (MCP_SERVERS, MCP_*). See @switchyard/mcp-tools. */
  ...mcpServersEnvShape,
  ...telemetryEnvShape,
  /** What a run may hold: map lists, step outputs, results (see packages/pipeline/src/store/limits.ts; docs/SECURITY.md). */
  ...runLimitsEnvShape,
  ...webhookAllowEnvShape,
  /** The HMAC-SHA256 key webhooks are signed with; needed (16 characters at least) when WEBHOOK_ALLOW lists a host. */
  WEBHOOK_SECRET: z.string().min(16).optional(),
  /** Longest webhook attempt in ms, connection to answer (default 10000). */
  WEBHOOK_TIMEOUT_MS: positiveInt(120_000).default(DEFAULT_WEBHOOK_TIMEOUT_MS),
  /** Most bytes of a webhook receiver's answer read (default 4096); the rest is dropped unread. */
  WEBHOOK_RESPONSE_MAX_BYTES: positiveInt(1024 * 1024).default(DEFAULT_WEBHOOK_RESPONSE_MAX_BYTES),
}).refine((env) => env.WEBHOOK_ALLOW === '' || env.WEBHOOK_SECRET !== undefined, { path: ['WEBHOOK_SECRET'], message: 'is needed when WEBHOOK_ALLOW lists a host: webhooks are always signed' });

export interface QueueSettings {
  concurrency: number;
  rate?: { max: number; duration: number } | undefined;
}

export interface WorkersConfig {
  redisUrl: string | undefined;
  prefix: string;
  logLevel: z.infer<typeof WorkersEnv>['LOG_LEVEL'];
  /** By queue name; queues not listed take `defaultConcurrency`. */
  queues: Record<string, QueueSettings>;
  defaultConcurrency: number;
  lockDurationMs: number;
  lockRenewMs: number;
  stalledIntervalMs: number;
  reconcileIntervalMs: number;
  retentionPassMs: number;
  compaction: { intervalMs: number; afterMs: number };
  shutdownGraceMs: number;
  /** EVENT_LOOP_STALL_MS: 0 for no watchdog. */
  eventLoopStallMs: number;
  /** SWITCHYARD_CRASH_POINT: the crash point armed in this process (tests only). */
  crashPoint: string | undefined;
  /** Content chunks joined per this many ms into one event. */
  contentFlushMs: number;
  /** DISPATCH_AHEAD. */
  dispatchAhead: number;
  retentionSeconds: number;
  budget: StageBudget;
  aceflow: { workspaceRoot: string | undefined; maxRegenerations: number; maxDefectLoops: number };
  /** Where `/metrics` is served; undefined: not at all. */
  metrics: { port: number; host: string } | undefined;
  /** Budgets of user-defined names the metrics label. */
  metricSeries: { maxPipelines: number; maxStages: number; maxTools: number };
  toolServices: ToolServicesConfig;
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
  /** The budget of user expressions (EXPRESSION_*). */
  expressions: ReturnType<typeof expressionSandboxConfig>;
  /** What a run may hold: map lists, step outputs, results. */
  limits: RunLimits;
  /** The models agent steps may name, `default` always among them. */
  models: ModelsConfig;
  /** The model client's attempts, timeouts and reply bounds (LLM_*). */
  modelClient: Omit<ModelClientOptions, 'models'>;
  /** MCP servers as agents' tool sources: each by name, and the bounds of their calls. */
  mcp: { servers: McpServersConfig; callTimeoutMs: number; maxResultBytes: number; maxTools: number };
  /** How webhooks are delivered; undefined when WEBHOOK_ALLOW lists no host. */
  webhooks: WebhookSettings | undefined;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): WorkersConfig {
  const env = load({ service: 'workers', schema: WorkersEnv, source }) as z.infer<typeof WorkersEnv> & Record<string, unknown>;
  const queues = Object.fromEntries(
    QUEUE_KEYS.map((key) => [QUEUE_NAMES[key], { concurrency: (env[`${key.toUpperCase()}_QUEUE_CONCURRENCY`] as number | undefined) ?? env.WORKER_CONCURRENCY, rate: env[`${key.toUpperCase()}_QUEUE_RATE`] as QueueSettings['rate'] }]),
  ) as Record<string, QueueSettings>;
  const toolServices = toolServicesFromEnv(env);
  // A service's declared calls a minute: BullMQ's limiter of its queue, which every worker shares in Redis.
  for (const service of Object.values(toolServices.extra)) {
    if (service.requestsPerMinute) queues[toolQueue(service.name)] = { concurrency: env.WORKER_CONCURRENCY, rate: { max: service.requestsPerMinute, duration: 60_000 } };
  }
  return {
    ...pipelineConfig(env),
    logLevel: env.LOG_LEVEL,
    queues,
    defaultConcurrency: env.WORKER_CONCURRENCY,
    lockDurationMs: env.LOCK_DURATION_MS,
    lockRenewMs: Math.min(env.LOCK_RENEW_MS, Math.floor(env.LOCK_DURATION_MS / 2)),
    stalledIntervalMs: env.STALLED_INTERVAL_MS,
    reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
    retentionPassMs: env.RETENTION_PASS_MS,
    compaction: { intervalMs: env.COMPACT_INTERVAL_MS, afterMs: env.COMPACT_AFTER_MS },
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    eventLoopStallMs: env.EVENT_LOOP_STALL_MS,
    crashPoint: env.SWITCHYARD_CRASH_POINT,
    contentFlushMs: env.CONTENT_FLUSH_MS,
    dispatchAhead: env.DISPATCH_AHEAD,
    budget: { maxAttempts: env.STAGE_MAX_ATTEMPTS, maxBreakerWaitMs: env.STAGE_MAX_BREAKER_WAIT_MS },
    aceflow: { workspaceRoot: env.ACEFLOW_WORKSPACE_ROOT, maxRegenerations: env.ACEFLOW_MAX_REGENERATIONS, maxDefectLoops: env.ACEFLOW_MAX_DEFECT_LOOPS },
    metrics: env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST },
    metricSeries: metricSeriesConfig(env),
    toolServices,
    telemetry: telemetryConfig(env),
    expressions: expressionSandboxConfig(env),
    limits: runLimitsConfig(env),
    models: modelsOrExit(source, env.MODEL_SERVICE_URL),
    modelClient: modelClientOptionsFromEnv(env),
    mcp: { servers: env.MCP_SERVERS ?? {}, callTimeoutMs: env.MCP_CALL_TIMEOUT_MS, maxResultBytes: env.MCP_MAX_RESULT_BYTES, maxTools: env.MCP_MAX_TOOLS },
    webhooks: env.WEBHOOK_SECRET && env.WEBHOOK_ALLOW ? { allow: parseAllowList(env.WEBHOOK_ALLOW), secret: env.WEBHOOK_SECRET, timeoutMs: env.WEBHOOK_TIMEOUT_MS, responseMaxBytes: env.WEBHOOK_RESPONSE_MAX_BYTES } : undefined,
  };
}

/** The configured models; a model variable the schema cannot judge alone (LLM_MODEL, api_key_env) stops start-up as a bad variable does. */
function modelsOrExit(source: Record<string, string | undefined>, fallbackBaseUrl: string): ModelsConfig {
  try {
    return parseModelsConfig({ env: source, fallbackBaseUrl });
  } catch (error) {
    if (!(error instanceof ModelsConfigError)) throw error;
    process.stderr.write(`workers: ${error.message}\n`);
    process.exit(2);
  }
}
