/**
 * A whole Switchyard on loopback for integration tests: the reference tool services, workers and
 * the orchestrator, under a key prefix of the test's own. Workers run in this process unless the
 * test starts worker processes itself (see `workerProcessEnv`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAceflowEngine } from '@switchyard/aceflow';
import { parseToolServicesEnv, type ToolServicesConfig } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import type { SeriesLimits } from '@switchyard/metrics';
import type { RunLimits } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { createOfflineAuthor, startToolServices, type FaultKnobs, type StoryAuthor, type ToolServicesStack } from '@switchyard/tool-services';
import type { BreakerOptions } from '@switchyard/tool-client';

import { ModelClient, parseModelsConfig } from '@switchyard/models';
import type { McpToolSource } from '@switchyard/mcp-tools';
import { mcpToolNames } from '../mcp-tool-names.js';
import { createHttpStageWriter, createHttpTools, createWorkerMetrics, startWorkers, type AgentModels, type RunningWorkers, type StageBudget, type WebhookSettings, type WorkerMetrics } from '@switchyard/workers';
import { startOrchestrator, type RunningOrchestrator, type StartOrchestratorOptions } from '../server.js';

export const TEST_API_KEY = 'test-key-0123456789';
/** The key the stack's tool services accept and its workers send (TOOL_SERVICE_API_KEY). */
export const TOOL_KEY = 'tool-key-test';

export interface TestStack {
  api: RunningOrchestrator;
  /** Where the AceFlow workers keep project workspaces (a fresh temporary directory). */
  aceflowRoot: string;
  /** The reference services, and the offline OpenAI-compatible model at `tools.model.baseUrl` (its knobs at `tools.model.faults`). */
  tools: ToolServicesStack;
  toolConfig: ToolServicesConfig;
  workers: RunningWorkers | undefined;
  /** The in-process workers' metrics, when `metricSeries` was given. */
  workerMetrics: WorkerMetrics | undefined;
  prefix: string;
  redisUrl: string;
  /** Fetches an API path with the test key (unless headers say otherwise). */
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = Record<string, unknown>>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }>;
  /** Polls GET /v1/runs/{id} until the run has ended; fails after `timeoutMs`. */
  waitForRun(runId: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface TestStackOptions {
  label: string;
  /** A Redis of the test's own (default: the test run's shared one). */
  redisUrl?: string;
  faults?: Partial<FaultKnobs>;
  author?: StoryAuthor;
  /** Start workers in this process (default true). */
  inProcessWorkers?: boolean;
  /** Tool-service variables (modes, timeouts) on top of the started services' URLs. */
  toolEnv?: Record<string, string>;
  /** Tool client retries per call (default 1 with short waits, to keep failure tests quick). */
  clientRetries?: number;
  lockDurationMs?: number;
  /** Ms between the in-process workers' sweeps for stranded runs (default: theirs, twice the stack's 1 s stalled interval). */
  reconcileIntervalMs?: number;
  /** The tool clients' breakers (default: the client's). */
  breaker?: Partial<BreakerOptions>;
  /** Seconds a finished run is kept (default 7 days), and ms between retention passes (default 60000). */
  retentionSeconds?: number;
  retentionPassMs?: number;
  /** The in-process workers' compactor (default: theirs, 5 s passes, runs compacted 10 s after their end). */
  compaction?: { intervalMs?: number; afterMs?: number };
  /** When failing stages give up (default: the workers'). */
  budget?: StageBudget;
  /** Budgets of user-defined names labelled by the API's metrics and by the in-process workers', which are then kept (default: theirs, and no workers' metrics). */
  metricSeries?: SeriesLimits;
  /** AceFlow loop bounds for the in-process workers (defaults 2 and 2). */
  aceflow?: { maxRegenerations?: number; maxDefectLoops?: number };
  /** The orchestrator's keys (default: TEST_API_KEY alone, with every scope). */
  apiKeys?: StartOrchestratorOptions['apiKeys'];
  /** Wrong keys allowed per client address (default: the orchestrator's, 10 a minute). */
  failedKeys?: StartOrchestratorOptions['failedKeys'];
  /** Dashboard sessions' lifetimes (default: the orchestrator's). */
  sessions?: StartOrchestratorOptions['sessions'];
  /** What a run may hold and a listing page may carry, for the orchestrator and the workers alike (default: the defaults). */
  limits?: Partial<RunLimits>;
  /**
   * Agent steps' models and MCP servers for the in-process workers (default: `default` is the
   * stack's offline model, and no MCP servers); `modelNames` and `mcpServers` tell the orchestrator
   * what registration accepts (default: the models given, and no MCP servers).
   */
  agents?: {
    models?: AgentModels;
    /** Models besides the offline `default` (name → OpenAI base URL, e.g. a scripted stub's), when `models` is not given. */
    moreModels?: Readonly<Record<string, string>>;
    /** Names under which the stack's offline model is reached over Anthropic's Messages API (`provider: anthropic`), when `models` is not given. */
    anthropicModels?: readonly string[];
    modelNames?: readonly string[];
    mcp?: ReadonlyMap<string, McpToolSource>;
  };
  /** The orchestrator's schedule bounds (default: its own, 1000 schedules and 64 KiB of input). */
  scheduleLimits?: StartOrchestratorOptions['scheduleLimits'];
  /** Jobs at once per queue in the in-process workers (default: theirs, 8). */
  workerConcurrency?: number;
  /** The in-process workers' DISPATCH_AHEAD (default: theirs). */
  dispatchAhead?: number;
  /** Webhooks: WEBHOOK_ALLOW (parsed) for the orchestrator and the in-process workers, and how the workers send them (default: none allowed, none sent). */
  webhooks?: WebhookSettings;
}

/** The in-process workers' models: the stack's offline model as `default`, and the test's own by name. */
function stackModels(offline: { baseUrl: string; url: string }, more: Readonly<Record<string, string>> = {}, anthropic: readonly string[] = []): ModelClient {
  const entries = [
    ...Object.entries(more).map(([name, baseUrl]) => [name, { base_url: baseUrl, model: name }] as const),
    ...anthropic.map((name) => [name, { provider: 'anthropic', base_url: offline.url, api_key_env: 'OFFLINE_ANTHROPIC_KEY', model: `${name}-offline` }] as const),
  ];
  const env = entries.length > 0 ? { MODELS: JSON.stringify(Object.fromEntries(entries)), OFFLINE_ANTHROPIC_KEY: TOOL_KEY } : {};
  const models = parseModelsConfig({ env, fallbackBaseUrl: offline.baseUrl, fallbackApiKey: TOOL_KEY });
  return new ModelClient({ models, baseBackoffMs: 50, maxBackoffMs: 500 });
}

export async function startTestStack(options: TestStackOptions): Promise<TestStack> {
  const redis = options.redisUrl ? { url: options.redisUrl } : await testRedis();
  const prefix = uniquePrefix(options.label);
  const logger = createLogger({ name: 'test', level: 'silent' });
  const tools = await startToolServices({ author: options.author ?? createOfflineAuthor(), logger, apiKeys: [TOOL_KEY], faults: options.faults });
  const toolConfig = parseToolServicesEnv({
    SEARCH_SERVICE_URL: tools.services.search.url,
    OUTLINE_SERVICE_URL: tools.services.outline.url,
    WRITING_SERVICE_URL: tools.services.writing.url,
    EDITING_SERVICE_URL: tools.services.editing.url,
    TOOL_SERVICE_API_KEY: TOOL_KEY,
    ...options.toolEnv,
  });
  const aceflowRoot = mkdtempSync(path.join(os.tmpdir(), 'switchyard-aceflow-'));
  const engineRedis = createRedisClient(redis.url);
  const workerMetrics = options.metricSeries ? createWorkerMetrics({ defaultMetrics: false, series: options.metricSeries }) : undefined;
  const workers =
    options.inProcessWorkers === false
      ? undefined
      : await startWorkers({
          redisUrl: redis.url,
          prefix,
          logger,
          tools: createHttpTools(toolConfig, {
            retry: { retries: options.clientRetries ?? 1, minDelayMs: 20, maxDelayMs: 100 },
            poll: { initialDelayMs: 20, maxDelayMs: 100 },
            ...(options.breaker ? { breaker: options.breaker } : {}),
          }),
          ...(options.budget ? { budget: options.budget } : {}),
          ...(options.retentionSeconds ? { retentionSeconds: options.retentionSeconds } : {}),
          ...(options.retentionPassMs ? { retentionPassMs: options.retentionPassMs } : {}),
          ...(options.compaction ? { compaction: options.compaction } : {}),
          ...(workerMetrics ? { metrics: workerMetrics } : {}),
          lockDurationMs: options.lockDurationMs ?? 5000,
          ...(options.workerConcurrency ? { defaultConcurrency: options.workerConcurrency } : {}),
          ...(options.dispatchAhead ? { dispatchAhead: options.dispatchAhead } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.webhooks ? { webhooks: options.webhooks } : {}),
          stalledIntervalMs: 1000,
          ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
          agents: { models: options.agents?.models ?? stackModels(tools.model, options.agents?.moreModels, options.agents?.anthropicModels), ...(options.agents?.mcp ? { mcp: options.agents.mcp } : {}) },
          aceflow: {
            engine: createAceflowEngine({ redis: engineRedis, prefix, workspaceRoot: aceflowRoot }),
            writer: createHttpStageWriter(toolConfig, { retry: { retries: options.clientRetries ?? 1, minDelayMs: 20, maxDelayMs: 100 } }),
            ...options.aceflow,
          },
        });
  const api = await startOrchestrator({
    redisUrl: redis.url,
    prefix,
    apiKeys: options.apiKeys ?? [TEST_API_KEY],
    toolServices: toolConfig,
    logger,
    heartbeatMs: 1000,
    ...(options.retentionSeconds ? { retentionSeconds: options.retentionSeconds } : {}),
    ...(options.failedKeys ? { failedKeys: options.failedKeys } : {}),
    ...(options.sessions ? { sessions: options.sessions } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.metricSeries ? { metricSeries: options.metricSeries } : {}),
    agentNames: { models: options.agents?.modelNames ?? ['default', ...Object.keys(options.agents?.moreModels ?? {}), ...(options.agents?.anthropicModels ?? [])], mcpServers: [...(options.agents?.mcp?.keys() ?? [])], ...(options.agents?.mcp ? { mcpTools: mcpToolNames(options.agents.mcp) } : {}) },
    ...(options.scheduleLimits ? { scheduleLimits: options.scheduleLimits } : {}),
    ...(options.webhooks ? { webhookAllow: options.webhooks.allow } : {}),
  });

  const request = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization') && !headers.has('x-api-key')) headers.set('authorization', `Bearer ${TEST_API_KEY}`);
    if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${api.url}${path}`, { ...init, headers });
  };
  const json = async <T,>(path: string, init?: RequestInit) => {
    const res = await request(path, init);
    return { status: res.status, body: (await res.json()) as T, headers: res.headers };
  };
  return {
    api,
    aceflowRoot,
    tools,
    toolConfig,
    workers,
    workerMetrics,
    prefix,
    redisUrl: redis.url,
    request,
    json,
    async waitForRun(runId, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { body } = await json<Record<string, unknown>>(`/v1/runs/${runId}`);
        if (['completed', 'failed', 'cancelled'].includes(String(body.status))) return body;
        if (Date.now() > deadline) throw new Error(`run ${runId} still ${String(body.status)} after ${timeoutMs} ms: ${JSON.stringify(body.stages)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      await api.close();
      await workers?.close(2000);
      await tools.close();
      await engineRedis.quit();
      rmSync(aceflowRoot, { recursive: true, force: true });
    },
  };
}

export { WorkerProcesses, waitFor } from './worker-processes.js';
export { readSse } from './events.js';
export { sendFrom } from './from-address.js';
export type { AddressedReply } from './from-address.js';
