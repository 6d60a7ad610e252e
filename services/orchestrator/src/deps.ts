import type { Redis } from 'ioredis';
import type { OrchestratorHealth } from '@switchyard/contracts';
import type { BrowserSessions, FailedKeyLimiter, KeyRing } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import type { Registry } from '@switchyard/metrics';
import type { BatchStore, PipelineQueues, PipelineStore, RunStore, ToolDirectory } from '@switchyard/pipeline';
import type { QueueBoard } from './dashboard/queue-board.js';
import type { SseStreams } from './sse.js';

/** What `GET /health` answers (the contracts' `OrchestratorHealth`). */
export type HealthReport = OrchestratorHealth;

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
  /** The configured keys and their scopes. */
  keys: KeyRing;
  /** The dashboard's browser sessions. */
  sessions: BrowserSessions;
  /** Wrong keys counted per client address. */
  failedKeys: FailedKeyLimiter;
  logger: Logger;
  health: () => Promise<HealthReport>;
  streams: SseStreams;
  /** Bull Board over the deployment's queues, served at /admin/queues. */
  queueBoard: QueueBoard;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  heartbeatMs?: number;
  /** What `GET /metrics` answers (default: no such route). */
  metrics?: Registry;
  /** Deepest nesting a JSON body may have (default MAX_JSON_DEPTH, 64). */
  jsonMaxDepth?: number | undefined;
}
