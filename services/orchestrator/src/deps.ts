import type { Redis } from 'ioredis';
import type { OrchestratorHealth } from '@switchyard/contracts';
import type { TrustProxy } from '@switchyard/config';
import type { BrowserSessions, FailedKeyLimiter, KeyRing, Probes } from '@switchyard/http-kit';
import type { Logger } from '@switchyard/logger';
import type { Registry } from '@switchyard/metrics';
import type { AgentDirectory, RunWaits, BatchStore, Notifier, NotifyAllowList, PipelineQueues, PipelineStore, RunStore, ScheduleStore, StreamHub, ToolDirectory } from '@switchyard/pipeline';
import type { QueueBoard } from './dashboard/queue-board.js';
import type { SseStreams } from './sse-streams.js';

/** What `GET /health` answers (the contracts' `OrchestratorHealth`). */
export type HealthReport = OrchestratorHealth;

/** What the routes need; built by `startOrchestrator`, or by a test. */
export interface AppDeps {
  store: RunStore;
  batches: BatchStore;
  queues: PipelineQueues;
  pipelines: PipelineStore;
  /** Schedules and their BullMQ job schedulers. */
  schedules: ScheduleStore;
  /** Webhooks: where they may go (WEBHOOK_ALLOW), and where their targets are recorded. */
  notify: { allow: NotifyAllowList; notifier: Notifier };
  /** The configured tool services, to check definitions against what they publish. */
  tools: ToolDirectory;
  /** What runs wait for: approvals, signals, the inbox. */
  waits: RunWaits;
  /** The configured models and MCP servers and the registered pipelines, to check agent steps against. */
  agents?: AgentDirectory | undefined;
  /** For commands; SSE streams read their replay on it too. */
  redis: Redis;
  /** The configured keys and their scopes. */
  keys: KeyRing;
  /** The dashboard's browser sessions. */
  sessions: BrowserSessions;
  /** Wrong keys counted per client address. */
  failedKeys: FailedKeyLimiter;
  /** The proxies trusted to name the client (TRUST_PROXY; default false: the peer is the client). */
  trustProxy?: TrustProxy | undefined;
  /** Follows the event streams of every SSE client on one reader. */
  hub: StreamHub;
  logger: Logger;
  health: () => Promise<HealthReport>;
  /** `GET /livez` and `GET /readyz` (default: not served). */
  probes?: Probes | undefined;
  /** Open SSE streams, and the caps on them. */
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
