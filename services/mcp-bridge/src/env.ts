/**
 * Configuration of the MCP bridge, parsed once at start-up. The stdio entry reads the same
 * variables and ignores those of the HTTP endpoint.
 */
import { z } from 'zod';
import { booleanFlag, commaList, expressionEnvShape, expressionSandboxConfig, failedKeyConfig, failedKeyEnvShape, httpServiceConfig, httpServiceEnvShape, loadEnv as load, metricSeriesConfig, metricSeriesEnvShape, pipelineConfig, pipelineEnvShape, type ApiKeyEntry, type TrustProxy } from '@switchyard/config';
import { toolServicesEnvShape, toolServicesFromEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { LogLevel } from '@switchyard/logger';
import { runLimitsConfig, runLimitsEnvShape, scheduleEnvShape, scheduleLimitsConfig, type RunLimits, type ScheduleLimits } from '@switchyard/pipeline';
import { telemetryConfig, telemetryEnvShape, type TelemetryConfig } from '@switchyard/telemetry';

const Origin = z.string().regex(/^https?:\/\/[^/\s]+$/, 'must be origins such as https://app.example.com or http://localhost:*');

export const BridgeEnv = z.object({
  /** API_KEYS: the orchestrator's keys, with their scopes (which tools a session sees; see tool-scopes.ts). */
  ...httpServiceEnvShape(8090),
  ...failedKeyEnvShape,
  ...pipelineEnvShape,
  ...expressionEnvShape,
  /** Origins a browser may call from; a request with any other Origin is refused (403). */
  ALLOWED_ORIGINS: commaList.pipe(z.array(Origin)).default([]),
  LOG_LEVEL: z.enum(LogLevel).default('info'),
  /** Seconds an idle MCP session (and its state) is kept in Redis. */
  SESSION_TTL_S: z.coerce.number().int().positive().default(24 * 3600),
  /** MCP sessions the deployment holds at once (in Redis, every key together); one more initialize is refused with 503. */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** MCP sessions one API key holds at once; one more initialize is refused with 429. */
  MCP_MAX_SESSIONS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** Bytes of initialize params (as JSON) a session keeps, clientInfo's text fields cut to 256 characters first; more is refused with 413. */
  MCP_MAX_INITIALIZE_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024).default(16 * 1024),
  /** Seconds a session's stream events stay replayable after the last one. */
  EVENT_TTL_S: z.coerce.number().int().positive().default(3600),
  /** Authorization servers to name in the OAuth protected-resource metadata; unset serves none. */
  AUTHORIZATION_SERVERS: commaList.pipe(z.array(z.url())).default([]),
  /** The bridge's public base URL (for that metadata); unset uses the request's Host. */
  PUBLIC_URL: z.url().optional(),
  ACEFLOW_WORKSPACE_ROOT: z.string().min(1).optional(),
  SUPERVISOR_WORKSPACE_ROOT: z.string().min(1).optional(),
  /** The workspace the code-intelligence tools index (default: the directory the bridge runs in). */
  CODE_INTEL_ROOT: z.string().min(1).optional(),
  /** A CKB MCP server for the call graph: a URL, or a command started over stdio. Unset: the bundled CKB-compatible server. */
  CKB_MCP_URL: z.url().optional(),
  CKB_MCP_COMMAND: z.string().min(1).optional(),
  /** false: graph-RAG reports `disabled` and never starts or asks CKB (seed 001's ckb_integration.enabled). */
  CKB_INTEGRATION_ENABLED: booleanFlag.default(true),
  /** Serve the MCP conformance suite's fixture tools, resources and prompts (test_*, test://), for running that suite. */
  MCP_CONFORMANCE_FIXTURES: booleanFlag.default(false),
  /** Runs per page of MCP resources/list. */
  RESOURCES_PAGE_SIZE: z.coerce.number().int().min(1).max(500).default(50),
  /** Serve the tool services' tools (GET /tools of each) as MCP tools. */
  TOOL_FEDERATION: booleanFlag.default(true),
  ...metricSeriesEnvShape,
  ...toolServicesEnvShape,
  ...telemetryEnvShape,
  /** What a run the bridge starts may hold, and what a page of list_runs carries (see packages/pipeline/src/store/limits.ts; docs/SECURITY.md). */
  ...runLimitsEnvShape,
  /** How many schedules there may be and how large their input (SCHEDULES_MAX, SCHEDULE_MAX_INPUT_BYTES; docs/SECURITY.md). */
  ...scheduleEnvShape,
});

export interface BridgeConfig {
  port: number;
  host: string;
  apiKeys: ApiKeyEntry[] | undefined;
  /** Wrong keys per client address: how many, over what window (ms). */
  failedKeys: { limit: number; windowMs: number; trustProxy: TrustProxy };
  allowedOrigins: string[];
  redisUrl: string | undefined;
  prefix: string;
  logLevel: z.infer<typeof BridgeEnv>['LOG_LEVEL'];
  retentionSeconds: number;
  sessionTtlSeconds: number;
  sessionLimits: { maxSessions: number; maxSessionsPerKey: number };
  maxInitializeBytes: number;
  /** Budgets of user-defined names the metrics label. */
  metricSeries: { maxPipelines: number; maxStages: number; maxTools: number };
  eventTtlSeconds: number;
  authorizationServers: string[];
  publicUrl: string | undefined;
  aceflowRoot: string | undefined;
  supervisorRoot: string | undefined;
  federation: boolean;
  resourcePageSize: number;
  conformanceFixtures: boolean;
  codeIntel: { root: string; ckbUrl: string | undefined; ckbCommand: string | undefined; ckbEnabled: boolean };
  toolServices: ToolServicesConfig;
  /** Tracing (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  telemetry: TelemetryConfig;
  /** The budget of user expressions (EXPRESSION_*). */
  expressions: ReturnType<typeof expressionSandboxConfig>;
  /** What a run may hold and a listing page may carry. */
  limits: RunLimits;
  /** How many schedules there may be and how large their input. */
  scheduleLimits: ScheduleLimits;
}

export function loadEnv(source: Record<string, string | undefined> = process.env): BridgeConfig {
  const env = load({ service: 'mcp-bridge', schema: BridgeEnv, source });
  return {
    ...httpServiceConfig(env),
    ...pipelineConfig(env),
    failedKeys: failedKeyConfig(env),
    allowedOrigins: env.ALLOWED_ORIGINS,
    logLevel: env.LOG_LEVEL,
    sessionTtlSeconds: env.SESSION_TTL_S,
    sessionLimits: { maxSessions: env.MCP_MAX_SESSIONS, maxSessionsPerKey: env.MCP_MAX_SESSIONS_PER_KEY },
    maxInitializeBytes: env.MCP_MAX_INITIALIZE_BYTES,
    metricSeries: metricSeriesConfig(env),
    eventTtlSeconds: env.EVENT_TTL_S,
    authorizationServers: env.AUTHORIZATION_SERVERS,
    publicUrl: env.PUBLIC_URL,
    aceflowRoot: env.ACEFLOW_WORKSPACE_ROOT,
    supervisorRoot: env.SUPERVISOR_WORKSPACE_ROOT,
    federation: env.TOOL_FEDERATION,
    resourcePageSize: env.RESOURCES_PAGE_SIZE,
    conformanceFixtures: env.MCP_CONFORMANCE_FIXTURES,
    codeIntel: { root: env.CODE_INTEL_ROOT ?? process.cwd(), ckbUrl: env.CKB_MCP_URL, ckbCommand: env.CKB_MCP_COMMAND, ckbEnabled: env.CKB_INTEGRATION_ENABLED },
    toolServices: toolServicesFromEnv(env),
    telemetry: telemetryConfig(env),
    expressions: expressionSandboxConfig(env),
    limits: runLimitsConfig(env),
    scheduleLimits: scheduleLimitsConfig(env),
  };
}
