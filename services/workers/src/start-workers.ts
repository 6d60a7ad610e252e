/**
 * Starts one BullMQ Worker per step queue (one per configured tool service and per step kind it
 * has) and the batch dispatcher in this process, after registering the shipped pipelines. Run
 * more processes on the same Redis to scale; each queue's concurrency and rate limit are its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker, type Processor } from 'bullmq';
import type { Logger } from '@switchyard/logger';
import { AGENT_QUEUE, CHILD_QUEUE, RunWaits, WAITS_QUEUE, BatchStore, BatchTurns, ConcurrencyGates, createPipelineQueues, kindQueue, Notifier, PipelineStore, processScheduleTick, QUEUES, registerShippedPipelines, RunStore, ScheduleStore, toolQueue, type RunLimits } from '@switchyard/pipeline';
import { createRedisClient, isConnectionError } from '@switchyard/redis';
import { bullmqTelemetry } from '@switchyard/telemetry';
import type { AceflowEngine } from '@switchyard/aceflow';
import { aceflowStageKind } from './aceflow/stage-kind.js';
import type { StageWriter } from './aceflow/stage-writer.js';
import { dispatchProcessor } from './dispatch.js';
import { notifyProcessor, type WebhookSettings } from './notify-delivery.js';
import { stepProcessor } from './engine/step-processor.js';
import { gatedSteps } from './engine/gated-steps.js';
import { failPoisonStep, SoloLane, STALLED_LIMIT_BACKSTOP } from './engine/solo-jobs.js';
import type { StepKinds } from './engine/step-kinds.js';
import { RunAborts } from './run-aborts.js';
import { RunReconciler } from './background/reconciler.js';
import { RetentionJanitor } from './background/retention.js';
import { COMPACT_AFTER_MS_DEFAULT, RunCompactor } from './background/compactor.js';
import type { QueueSettings } from './env.js';
import type { StageBudget } from './stage-budget.js';
import type { StepTools } from './tools.js';
import { redisMetrics } from '@switchyard/metrics';
import type { WorkerMetrics } from './metrics.js';
import { createAgentRuntime } from './agent/agent-runtime.js';
import { agentMetrics } from './agent/agent-metrics.js';
import type { AgentModels } from './agent/model-port.js';
import type { McpToolSource } from '@switchyard/mcp-tools';

export interface StartWorkersOptions {
  redisUrl: string;
  /** BullMQ prefix and run-store namespace (default "sy"). */
  prefix?: string;
  tools: StepTools;
  logger: Logger;
  /** Per queue name; default concurrency `defaultConcurrency` and no rate limit. */
  queues?: Record<string, Partial<QueueSettings>>;
  /** Jobs at once on a queue with no settings of its own (default 8). */
  defaultConcurrency?: number;
  /** Job lock; a crashed worker's jobs are taken over within this plus the stalled interval (default 7000). */
  lockDurationMs?: number;
  /** Each active job's lock is renewed every half of this to all of it (default 1500, at most half the lock). */
  lockRenewMs?: number;
  /** How often jobs whose lock lapsed are looked for (default 1000). */
  stalledIntervalMs?: number;
  /** Seconds a finished run stays readable (default 7 days). */
  retentionSeconds?: number;
  /** Ms between passes of the retention janitor (default 60000). */
  retentionPassMs?: number;
  /** Ms between passes of the compactor (default 5000), and ms after its end before a run is compacted (default 10000). */
  compaction?: { intervalMs?: number; afterMs?: number };
  /** Ms between the reconciler's sweeps for stranded runs (default 30000). */
  reconcileIntervalMs?: number;
  /** Ms a streamed stage's chunks are gathered into one content event (default CONTENT_FLUSH_MS). */
  contentFlushMs?: number;
  /** Rounds of a key's share a batch keeps waiting in its pipeline's queues (default DEFAULT_DISPATCH_AHEAD, dispatch.ts). */
  dispatchAhead?: number;
  /** When a failing stage gives up (default DEFAULT_STAGE_BUDGET: 3 attempts, 10 min of breaker waits). */
  budget?: StageBudget;
  /** AceFlow stage pipelines; their queue is served only when given. */
  aceflow?: { engine: AceflowEngine; writer: StageWriter; maxRegenerations?: number; maxDefectLoops?: number };
  /** Counts runs, stages and the Redis round trip into these metrics (default: none kept). */
  metrics?: WorkerMetrics;
  /** What a run may hold: map lists, step outputs, results (default DEFAULT_RUN_LIMITS). */
  limits?: Partial<RunLimits>;
  /**
   * Agent steps: the models, and the MCP servers their tools may come from (started by the
   * caller). The agent queue is served only when given.
   */
  agents?: { models: AgentModels; mcp?: ReadonlyMap<string, McpToolSource> };
  /** How webhooks are delivered; without it, none is (their jobs wait for a process that has it). */
  webhooks?: WebhookSettings;
  /** Ms between sweeps of the owed webhooks a died process left, and how long one is owed before a sweep takes it (defaults 5000 and 5000). */
  notifySweep?: { intervalMs: number; graceMs: number };
}

/** A limiter that never limits: a billion jobs a second. */
const UNREACHED_LIMIT = { max: 1_000_000_000, duration: 1000 };

export interface RunningWorkers {
  workers: Worker[];
  /** Folds ended runs into their archives on its interval; `pass()` runs one now. */
  compactor: RunCompactor;
  /**
   * Starts no job of `queue` on any worker of the deployment for `ms` (BullMQ's rate limit of the
   * queue, in Redis): what a tool service's 429 with Retry-After asks of every worker.
   */
  pauseQueue(queue: string, ms: number): Promise<void>;
  /** Stops taking jobs, lets active ones finish for up to `graceMs`, then hands the rest back. */
  close(graceMs?: number): Promise<void>;
}

export async function startWorkers(options: StartWorkersOptions): Promise<RunningWorkers> {
  const prefix = options.prefix ?? '{sy}';
  const connection = createRedisClient(options.redisUrl);
  const notifier = new Notifier({ redis: connection, prefix, onError: (error) => options.logger.warn({ err: error }, 'owed webhooks could not be enqueued; the sweep tries again') });
  const store = new RunStore({ redis: connection, prefix, retentionSeconds: options.retentionSeconds, observer: options.metrics?.runs, limits: options.limits, onNotifyOwed: notifier.owed });
  if (options.metrics) redisMetrics(options.metrics.registry, connection);
  const batches = new BatchStore(store);
  const pipelines = new PipelineStore({ redis: connection, prefix });
  await registerShippedPipelines(pipelines);
  const queues = createPipelineQueues({ connection, prefix });
  const schedules = new ScheduleStore({ redis: connection, prefix });
  // A schedule stored by a process that died before setting its job scheduler ticks from now on.
  await schedules.restoreSchedulers();
  const aborts = new RunAborts({ store, subscriber: createRedisClient(options.redisUrl), endedListedMs: options.compaction?.afterMs ?? COMPACT_AFTER_MS_DEFAULT });
  await aborts.start();
  const kinds: StepKinds = {};
  if (options.aceflow) kinds['aceflow.stage'] = aceflowStageKind({ ...options.aceflow, maxRegenerations: options.aceflow.maxRegenerations ?? 2, maxDefectLoops: options.aceflow.maxDefectLoops ?? 2 });
  const agents = options.agents && createAgentRuntime({ store, pipelines, queues, tools: options.tools, models: options.agents.models, mcp: options.agents.mcp, metrics: options.metrics && agentMetrics(options.metrics.registry, options.metrics.labels) });
  const waits = new RunWaits({ redis: connection, keys: store.keys, prefix });
  // Concurrency keys in front: a job over its key's limit waits delayed, holding no slot.
  const gates = new ConcurrencyGates({ redis: connection, prefix });
  // Jobs that keep losing their worker run alone; one that kills its worker alone fails its run (solo-jobs.ts).
  const lane = new SoloLane();
  const step = lane.wrap(gatedSteps({ store, steps: queues.steps, pipelines, gates, queueWaits: options.metrics?.queueWaits }, stepProcessor({ store, waits, aborts, logger: options.logger, tools: options.tools, kinds, pipelines, steps: queues.steps, budget: options.budget, stageMetrics: options.metrics?.stages, contentFlushMs: options.contentFlushMs, agents })), { poisoned: failPoisonStep({ store, aborts, logger: options.logger, budget: options.budget }) });

  const processors = new Map<string, Processor>([
    ...options.tools.services().map((service) => [toolQueue(service), step] as const),
    ...Object.keys(kinds).map((kind) => [kindQueue(kind), step] as const),
    ...(agents ? [[AGENT_QUEUE, step] as const] : []),
    [WAITS_QUEUE, step],
    // Child pipeline steps: each job starts or looks at a child run and goes back to the delayed set.
    [CHILD_QUEUE, step],
    [QUEUES.dispatch, lane.wrap(dispatchProcessor({ store, batches, pipelines, steps: queues.steps, turns: new BatchTurns({ redis: connection, prefix }), ahead: options.dispatchAhead }))],
    [QUEUES.scheduleTick, lane.wrap((job) => processScheduleTick({ store, queues, pipelines, schedules }, job))],
    ...(options.webhooks ? [[QUEUES.notifyDelivery, lane.wrap(notifyProcessor({ store, batches, settings: options.webhooks }))] as const] : []),
  ]);
  /** Queues whose jobs are no run's steps: their failures end no run. */
  const notSteps = new Set<string>([QUEUES.dispatch, QUEUES.scheduleTick, QUEUES.notifyDelivery]);
  const reconciler = new RunReconciler({ store, connection, prefix, logger: options.logger, intervalMs: options.reconcileIntervalMs ?? 30_000 });
  const toolQueues = new Set(options.tools.services().map((service) => toolQueue(service)));
  const workers = [...processors.entries()].map(([name, processor]) => {
    const settings = options.queues?.[name];
    // BullMQ honours a queue's rate limit (what pauseQueue sets) only on a worker with a limiter: a
    // tool queue with no rate of its own gets one no deployment reaches (an INCR inside the script
    // that takes a job), so that a service's 429 can hold it.
    const limiter = settings?.rate ?? (toolQueues.has(name) ? UNREACHED_LIMIT : undefined);
    const worker = new Worker(name, processor, {
      connection,
      prefix,
      concurrency: settings?.concurrency ?? options.defaultConcurrency ?? 8,
      ...(limiter ? { limiter } : {}),
      lockDuration: options.lockDurationMs ?? 7000,
      lockRenewTime: Math.min(options.lockRenewMs ?? 1500, Math.floor((options.lockDurationMs ?? 7000) / 2)),
      stalledInterval: options.stalledIntervalMs ?? 1000,
      // A job whose worker died is handed on; whether it kills its workers is judged by the
      // lane (solo-jobs.ts) first: BullMQ's own limit is a backstop above it.
      maxStalledCount: STALLED_LIMIT_BACKSTOP,
      // Each job processed is a span in the trace of the request that started its run.
      ...bullmqTelemetry(),
    });
    // A lost connection is said once per outage (see reportRedisOutagesTo), not by every worker at every retry.
    worker.on('error', (err) => {
      if (!isConnectionError(err)) options.logger.error({ err, queue: name }, 'worker error');
    });
    if (!notSteps.has(name)) {
      worker.on('failed', (job, err) => {
        reconciler.onJobFailed(job, err).catch((error: unknown) => options.logger.warn({ err: error, job_id: job?.id }, 'could not end the run of a failed job; the reconciler will'));
      });
    }
    return worker;
  });
  lane.attach(workers);
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  reconciler.start();
  notifier.startSweeping(options.notifySweep ?? { intervalMs: 5000, graceMs: 5000 });
  const janitor = new RetentionJanitor({ store, connection, prefix, logger: options.logger, queueNames: [...processors.keys()], ...(options.retentionPassMs ? { intervalMs: options.retentionPassMs } : {}) });
  janitor.start();
  const compactor = new RunCompactor({ store, connection, logger: options.logger, ...options.compaction });
  compactor.start();

  const paused = new Map<string, Queue>();
  return {
    workers,
    compactor,
    async pauseQueue(queue, ms) {
      let handle = paused.get(queue);
      if (!handle) paused.set(queue, (handle = new Queue(queue, { connection, prefix })));
      await handle.rateLimit(ms);
    },
    async close(graceMs = 25_000) {
      const closing = Promise.all(workers.map((w) => w.close()));
      const inTime = await Promise.race([closing.then(() => true), sleep(graceMs, false, { ref: false })]);
      // Past the grace period the active jobs are dropped unfinished; their locks lapse and another worker takes them.
      if (!inTime) await Promise.all(workers.map((w) => w.close(true)));
      await reconciler.stop();
      await janitor.stop();
      await compactor.stop();
      await aborts.close();
      await queues.close();
      await Promise.all([...paused.values()].map((queue) => queue.close()));
      await schedules.close();
      await notifier.close();
      await options.tools.close?.();
      await Promise.all([...(options.agents?.mcp?.values() ?? [])].map((source) => source.close()));
      await connection.quit().catch(() => undefined);
    },
  };
}
