import type { Redis } from 'ioredis';
import type { Logger } from '@switchyard/logger';
import type { BatchStore, PipelineQueues, PipelineStore, RunStore, ToolDirectory } from '@switchyard/pipeline';
import type { SseStreams } from './sse.js';

export interface HealthReport {
  status: 'healthy' | 'degraded';
  redis: { healthy: boolean; latency_ms: number; error?: string };
  services: Record<string, { healthy: boolean; url: string; latency_ms: number; error?: string }>;
}

/** What the routes need; built by `startOrchestrator`, or by a test. */
export interface AppDeps {
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
  pipelines: PipelineStore;
  /** The configured tool services, to check definitions against what they publish. */
  tools: ToolDirectory;
  /** For commands and to duplicate per SSE client. */
  redis: Redis;
  apiKeys: readonly string[];
  logger: Logger;
  health: () => Promise<HealthReport>;
  streams: SseStreams;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  heartbeatMs?: number;
}
