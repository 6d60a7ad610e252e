/**
 * What every bridge process shares across its connections: one Redis connection, the run and
 * batch stores, the queues that start pipelines, and the tool registry built from the suites.
 */
import type { Redis } from 'ioredis';
import { BatchStore, createPipelineQueues, PipelineStore, registerShippedPipelines, RunStore, type PipelineQueues } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import type { ToolSuite } from '@switchyard/tool-suite';
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
  /** Told when the shipped pipelines could not be registered (default: ignored). */
  onError?: (error: unknown) => void;
}

export interface BridgeDeps {
  redis: Redis;
  prefix: string;
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
  pipelines: PipelineStore;
  tools: ToolRegistry;
  /** Closes the queues and the Redis connection. */
  close(): Promise<void>;
}

export function openBridgeDeps(options: BridgeDepsOptions): BridgeDeps {
  const prefix = options.prefix ?? 'sy';
  const redis = createRedisClient(options.redisUrl);
  const store = new RunStore({ redis, prefix, retentionSeconds: options.retentionSeconds });
  const batches = new BatchStore(store);
  const queues = createPipelineQueues({ connection: redis, prefix });
  const pipelines = new PipelineStore({ redis, prefix });
  // Workers and the orchestrator register them too; a bridge on its own should not depend on them.
  registerShippedPipelines(pipelines).catch((error: unknown) => options.onError?.(error));
  const { suites, pipelines: pipelineTools } = bridgeSuites({ store, batches, queues, pipelines, redis, prefix, aceflowRoot: options.aceflowRoot, supervisorRoot: options.supervisorRoot });
  const tools = new ToolRegistry([...suites, ...(options.extraSuites ?? [])]);
  return {
    redis,
    prefix,
    store,
    batches,
    queues,
    pipelines,
    tools,
    async close() {
      await pipelineTools.close();
      await queues.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
