/**
 * What every bridge process shares across its connections: one Redis connection, the run and
 * batch stores, the queues that start pipelines, and the tool registry built from the suites.
 */
import type { Redis } from 'ioredis';
import type { ToolServicesConfig } from '@switchyard/contracts';
import { BatchStore, createPipelineQueues, Notifier, PipelineStore, registerShippedPipelines, RunStore, RunWaits, ScheduleStore, StreamHub, type PipelineQueues, type RunLimits, type RunObserver, type ScheduleLimits } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { SupervisorStore } from '@switchyard/supervisor';
import { serviceDirectory } from '@switchyard/tool-client';
import type { ToolSuite } from '@switchyard/tool-suite';
import { completionSources } from './completions/sources.js';
import { conformanceFixtureSuite } from './conformance/fixtures.js';
import type { BridgeFeatures } from './features.js';
import { BridgeNotices } from './logging/bridge-notices.js';
import { ToolRegistry } from './registry.js';
import { bridgeSuites } from './suites/index.js';

export interface BridgeDepsOptions {
  redisUrl: string;
  /** BullMQ prefix and run-store namespace, the orchestrator's and workers' (default "sy"). */
  prefix?: string;
  /** Seconds a finished run stays readable (default 7 days), as the orchestrator is told. */
  retentionSeconds?: number;
  aceflowRoot?: string | undefined;
  supervisorRoot?: string | undefined;
  /** Suites served after the built-in ones (e.g. tools federated from tool services). */
  extraSuites?: readonly ToolSuite[];
  /** Told when the shipped pipelines could not be registered (default: ignored; clients hear of it as a warning either way). */
  onError?: (error: unknown) => void;
  /** Milliseconds over which a subscribed run's events make one resources/updated (default 200). */
  subscriptionDebounceMs?: number;
  /** The tool services pipelines call: with them, agents register pipelines (register_pipeline; default none). */
  toolServices?: ToolServicesConfig | undefined;
  /** Runs per page of resources/list (default 50). */
  resourcePageSize?: number | undefined;
  /** Serve the MCP conformance suite's fixtures (default false; see conformance/fixtures.ts). */
  conformanceFixtures?: boolean | undefined;
  /** Told of the runs this bridge starts and cancels, e.g. to count them (default: nobody). */
  runObserver?: RunObserver | undefined;
  /** What a run the bridge starts may hold, and what a listing page carries (default DEFAULT_RUN_LIMITS). */
  limits?: Partial<RunLimits> | undefined;
  /** How many schedules there may be and how large their input (defaults: 1000, 64 KiB). */
  scheduleLimits?: Partial<ScheduleLimits> | undefined;
}

export interface BridgeDeps {
  redis: Redis;
  prefix: string;
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
  pipelines: PipelineStore;
  /** What runs wait for (the inbox tools and wait_for_run's elicitation). */
  waits: RunWaits;
  tools: ToolRegistry;
  /** Resources, prompts, completions and logging: what every session's server shares. */
  features: BridgeFeatures;
  /**
   * Resolves once the shipped pipelines are registered (or could not be) and every registered
   * pipeline's tool is listed: a session opened after it lists the same tools over stdio as over HTTP.
   */
  ready: Promise<void>;
  /** Closes the queues, the stream hub and the Redis connection. */
  close(): Promise<void>;
}

export function openBridgeDeps(options: BridgeDepsOptions): BridgeDeps {
  const prefix = options.prefix ?? '{sy}';
  const redis = createRedisClient(options.redisUrl);
  // A run cancelled here that owes a webhook has its delivery job added at once (else the workers' sweep would).
  const notifier = new Notifier({ redis, prefix, onError: (error) => options.onError?.(error) });
  const store = new RunStore({ redis, prefix, retentionSeconds: options.retentionSeconds, observer: options.runObserver, limits: options.limits, onNotifyOwed: notifier.owed });
  const batches = new BatchStore(store);
  const queues = createPipelineQueues({ connection: redis, prefix });
  const pipelines = new PipelineStore({ redis, prefix });
  const schedules = new ScheduleStore({ redis, prefix, limits: options.scheduleLimits });
  const waits = new RunWaits({ redis, keys: store.keys, prefix });
  const supervisor = new SupervisorStore({ redis, prefix });
  const notices = new BridgeNotices();
  // Workers and the orchestrator register them too; a bridge on its own should not depend on them.
  const shipped = registerShippedPipelines(pipelines).catch((error: unknown) => {
    options.onError?.(error);
    notices.warn('the shipped pipelines could not be registered by this bridge', { error: error instanceof Error ? error.message : String(error) });
  });
  const { suites, pipelines: pipelineTools } = bridgeSuites({ store, batches, queues, pipelines, schedules, waits, redis, prefix, aceflowRoot: options.aceflowRoot, supervisorRoot: options.supervisorRoot, tools: options.toolServices ? serviceDirectory(options.toolServices) : undefined });
  const tools = new ToolRegistry([...suites, ...(options.extraSuites ?? []), ...(options.conformanceFixtures ? [conformanceFixtureSuite()] : [])]);
  // While Redis is away every read fails: clients hear of it once in 30 s, not at each retry.
  let warnedAt = 0;
  const hub = new StreamHub({
    redis,
    onError: (error) => {
      if (Date.now() - warnedAt < 30_000) return;
      warnedAt = Date.now();
      notices.warn('run events could not be read; retrying', { error: error instanceof Error ? error.message : String(error) });
    },
  });
  const features: BridgeFeatures = {
    store,
    batches,
    pipelines,
    hub,
    notices,
    sources: completionSources({ redis, prefix, store, pipelines, supervisor }),
    supervisorProjects: () => supervisor.listProjects(),
    onPipelineChanged: (listener) => pipelineTools.onPipelineChanged(listener),
    ...(options.subscriptionDebounceMs !== undefined ? { debounceMs: options.subscriptionDebounceMs } : {}),
    ...(options.resourcePageSize !== undefined ? { pageSize: options.resourcePageSize } : {}),
    conformanceFixtures: options.conformanceFixtures === true,
  };
  return {
    redis,
    prefix,
    store,
    batches,
    queues,
    pipelines,
    waits,
    tools,
    features,
    // Bounded: with Redis away at start the bridge still serves, and the tools come when it does.
    ready: Promise.race([shipped.then(() => pipelineTools.announceRegistered()).catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]),
    async close() {
      hub.close();
      await pipelineTools.close();
      await queues.close();
      await schedules.close();
      await notifier.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
