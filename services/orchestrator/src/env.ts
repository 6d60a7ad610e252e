/**
 * Configuration of the orchestrator, parsed once at start-up.
 */
import { z } from 'zod';
import { expressionEnvShape, expressionSandboxConfig, failedKeyConfig, failedKeyEnvShape, httpServiceConfig, httpServiceEnvShape, loadEnv as load, metricSeriesConfig, metricSeriesEnvShape, pipelineConfig, pipelineEnvShape, type ApiKeyEntry, type TrustProxy } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { MAX_JSON_DEPTH } from '@switchyard/http-kit';
import { LogLevel } from '@switchyard/logger';
import { mcpServersEnvShape, type McpServersConfig } from '@switchyard/mcp-tools';
import { modelsEnvShape, ModelsConfigError, parseModelsConfig, type ModelsConfig } from '@switchyard/models';
import { parseAllowList, runLimitsConfig, runLimitsEnvShape, scheduleEnvShape, scheduleLimitsConfig, webhookAllowEnvShape, type NotifyAllowList, type RunLimits, type ScheduleLimits } from '@switchyard/pipeline';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';

export const OrchestratorEnv = z.object({
  ...httpServiceEnvShape(8080),
  ...pipelineEnvShape,
  ...expressionEnvShape,
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  ...failedKeyEnvShape,
  /** Seconds without a request after which a dashboard session ends (default 2 h). */
  UI_SESSION_IDLE_S: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(2 * 3600),
  /** Seconds after its opening at which a dashboard session ends, however busy (default 24 h). */
  UI_SESSION_MAX_S: z.coerce.number().int().min(60).max(365 * 24 * 3600).default(24 * 3600),
  /** SSE streams (run and batch events) this process holds open at once, every key together; one more answers 503. */
  SSE_MAX_STREAMS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** SSE streams one API key may hold open at once in this process; one more answers 429. */
  SSE_MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(100_000).default(200),
  ...metricSeriesEnvShape,
  ...toolServicesEnvShape,
  /** The models agent steps may name (LLM_*, MODELS): parsed here so registration can check a step's model. See @switchyard/models. */
  ...modelsEnvShape,
  /** MCP servers agent steps may name (MCP_SERVERS): parsed here so registration can check a step's servers. See @switchyard/mcp-tools. */
  ...mcpServersEnvShape,
  ...telemetryEnvShape,
  /** What a run may hold and a listing page may carry (see packages/pipeline/src/store/limits.ts; docs/SECURITY.md). */
  ...runLimitsEnvShape,
  /** How many schedules there may be and how large their input (SCHEDULES_MAX, SCHEDULE_MAX_INPUT_BYTES; docs/SECURITY.md). */
  ...scheduleEnvShape,
  /** Hosts a run's or batch's `notify.url` may name (WEBHOOK_ALLOW; docs/SECURITY.md). */
  ...webhookAllowEnvShape,
  /** Deepest nesting of arrays and objects a JSON body may have (default 64): refused with 400 before it is parsed. */
  JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(1000).default(MAX_JSON_DEPTH),
  /**
   * Tests only: the crash point (packages/pipeline/src/crash-points.ts) at which this process
   * kills itself with SIGKILL. Unset (always, in production): no point is armed.
   */
  SWITCHYARD_CRASH_POINT: z.string().regex(/^[a-z0-9.-]+$/).max(100).optional(),
});

export interface OrchestratorConfig {
  port: number;
  host: string;
  apiKeys: ApiKeyEntry[] | undefined;
  /** Dashboard sessions: idle and absolute lifetimes, in ms. */
  sessions: { idleMs: number; maxMs: number };
  /** Wrong keys per client address: how many, over what window (ms). */
  failedKeys: { limit: number; windowMs: number; trustProxy: TrustProxy };
  redisUrl: string | undefined;
  prefix: string;
  logLevel: z.infer<typeof OrchestratorEnv>['LOG_LEVEL'];
  retentionSeconds: number;
  toolServices: ToolServicesConfig;
  /** Caps on open SSE streams. */
  sse: { maxStreams: number; maxStreamsPerKey: number };
  /** Budgets of user-defined names the metrics label. */
  metricSeries: { maxPipelines: number; maxStages: number; maxTools: number };
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
  /** The budget of user expressions (EXPRESSION_*). */
  expressions: ReturnType<typeof expressionSandboxConfig>;
  /** What a run may hold and a listing page may carry. */
  limits: RunLimits;
  /** How many schedules there may be and how large their input. */
  scheduleLimits: ScheduleLimits;
  /** Where webhooks may go (WEBHOOK_ALLOW). */
  webhookAllow: NotifyAllowList;
  /** Deepest nesting a JSON body may have. */
  jsonMaxDepth: number;
  /** The models agent steps may name, `default` always among them: registration checks a step's model against them. */
  models: ModelsConfig;
  /** The MCP servers agent steps may name. */
  mcpServers: readonly string[];
  /** Those servers as configured, for registration to ask each what tools it lists; and the most tools one may list. */
  mcp: { servers: McpServersConfig; maxTools: number };
  /** SWITCHYARD_CRASH_POINT: the crash point armed in this process (tests only). */
  crashPoint: string | undefined;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): OrchestratorConfig {
  const env = load({ service: 'orchestrator', schema: OrchestratorEnv, source });
  return {
    ...httpServiceConfig(env),
    ...pipelineConfig(env),
    logLevel: env.LOG_LEVEL,
    sessions: { idleMs: env.UI_SESSION_IDLE_S * 1000, maxMs: env.UI_SESSION_MAX_S * 1000 },
    failedKeys: failedKeyConfig(env),
    toolServices: toolServicesFromEnv(env),
    sse: { maxStreams: env.SSE_MAX_STREAMS, maxStreamsPerKey: env.SSE_MAX_STREAMS_PER_KEY },
    metricSeries: metricSeriesConfig(env),
    telemetry: telemetryConfig(env),
    expressions: expressionSandboxConfig(env),
    limits: runLimitsConfig(env),
    scheduleLimits: scheduleLimitsConfig(env),
    webhookAllow: parseAllowList(env.WEBHOOK_ALLOW),
    jsonMaxDepth: env.JSON_MAX_DEPTH,
    models: modelsOrExit(source, env.MODEL_SERVICE_URL),
    mcpServers: Object.keys(env.MCP_SERVERS ?? {}),
    mcp: { servers: env.MCP_SERVERS ?? {}, maxTools: env.MCP_MAX_TOOLS },
    crashPoint: env.SWITCHYARD_CRASH_POINT,
  };
}

/** The configured models; a model variable the schema cannot judge alone (LLM_MODEL, api_key_env) stops start-up as a bad variable does. */
function modelsOrExit(source: Record<string, string | undefined>, fallbackBaseUrl: string): ModelsConfig {
  try {
    return parseModelsConfig({ env: source, fallbackBaseUrl });
  } catch (error) {
    if (!(error instanceof ModelsConfigError)) throw error;
    process.stderr.write(`orchestrator: ${error.message}\n`);
    process.exit(2);
  }
}
