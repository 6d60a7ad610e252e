/**
 * Starts one BullMQ Worker per stage queue (and the batch dispatcher) in this process. Run more
 * processes on the same Redis to scale; each queue's concurrency and rate limit are its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, type Processor } from 'bullmq';
import type { Logger } from '@switchyard/logger';
import { BatchStore, createPipelineQueues, QUEUES, RunStore, type QueueKey } from '@switchyard/pipeline';
import { createRedisClient, isConnectionError } from '@switchyard/redis';
import type { AceflowEngine } from '@switchyard/aceflow';
import { aceflowProcessor } from './aceflow/processor.js';
import type { StageWriter } from './aceflow/stage-writer.js';
import { dispatchProcessor } from './dispatch.js';
import { outlineProcessor, polishProcessor, searchProcessor, writeProcessor } from './processors.js';
import { RunAborts } from './run-aborts.js';
import { RunReconciler } from './reconciler.js';
import { RetentionJanitor } from './retention.js';
import type { QueueSettings } from './env.js';
import type { StageBudget } from './stage-budget.js';
import type { StoryTools } from './story-tools.js';

export interface StartWorkersOptions {
  redisUrl: string;
  /** BullMQ prefix and run-store namespace (default "sy"). */
  prefix?: string;
  tools: StoryTools;
  logger: Logger;
  /** Per queue; default concurrency 8 and no rate limit. */
  queues?: Partial<Record<QueueKey, Partial<QueueSettings>>>;
  /** Job lock; a crashed worker's jobs are taken over after about this long (default 30000). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (default 15000). */
  stalledIntervalMs?: number;
  /** Seconds a finished run stays readable (default 7 days). */
  retentionSeconds?: number;
  /** Ms between passes of the retention janitor (default 60000). */
  retentionPassMs?: number;
  /** Ms between the reconciler's sweeps for stranded runs (default twice the stalled interval). */
  reconcileIntervalMs?: number;
  /** When a failing stage gives up (default DEFAULT_STAGE_BUDGET: 3 attempts, 10 min of breaker waits). */
  budget?: StageBudget;
  /** AceFlow stage pipelines; their queue is served only when given. */
  aceflow?: { engine: AceflowEngine; writer: StageWriter; maxRegenerations?: number; maxDefectLoops?: number };
}

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs, lets active ones finish for up to `graceMs`, then hands the rest back. */
  close(graceMs?: number): Promise<void>;
}

export async function startWorkers(options: StartWorkersOptions): Promise<RunningWorkers> {
  const prefix = options.prefix ?? 'sy';
  const connection = createRedisClient(options.redisUrl);
  const store = new RunStore({ redis: connection, prefix, retentionSeconds: options.retentionSeconds });
  const batches = new BatchStore(store);
  const queues = createPipelineQueues({ connection, prefix });
  const aborts = new RunAborts({ store, subscriber: createRedisClient(options.redisUrl) });
  await aborts.start();
  const deps = { store, aborts, logger: options.logger, tools: options.tools, flows: queues.flows, budget: options.budget };

  const processors: Partial<Record<QueueKey, Processor>> = {
    search: searchProcessor(deps),
    outline: outlineProcessor(deps),
    write: writeProcessor(deps),
    polish: polishProcessor(deps),
    dispatch: dispatchProcessor({ store, batches, flows: queues.flows }),
  };
  if (options.aceflow) {
    processors.aceflow = aceflowProcessor({ ...deps, ...options.aceflow, maxRegenerations: options.aceflow.maxRegenerations ?? 2, maxDefectLoops: options.aceflow.maxDefectLoops ?? 2 });
  }
  const reconciler = new RunReconciler({ store, connection, prefix, logger: options.logger, intervalMs: options.reconcileIntervalMs ?? 2 * (options.stalledIntervalMs ?? 15_000) });
  const workers = (Object.keys(processors) as QueueKey[]).map((key) => {
    const settings = options.queues?.[key];
    const worker = new Worker(QUEUES[key], processors[key] as Processor, {
      connection,
      prefix,
      concurrency: settings?.concurrency ?? 8,
      ...(settings?.rate ? { limiter: settings.rate } : {}),
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 15_000,
      // A job whose worker died is handed on; twice in a row suggests the job kills workers.
      maxStalledCount: 2,
    });
    // A lost connection is said once per outage (see reportRedisOutagesTo), not by every worker at every retry.
    worker.on('error', (err) => {
      if (!isConnectionError(err)) options.logger.error({ err, queue: QUEUES[key] }, 'worker error');
    });
    if (key !== 'dispatch') {
      worker.on('failed', (job, err) => {
        reconciler.onJobFailed(job, err).catch((error: unknown) => options.logger.warn({ err: error, job_id: job?.id }, 'could not end the run of a failed job; the reconciler will'));
      });
    }
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  reconciler.start();
  const janitor = new RetentionJanitor({ store, connection, prefix, logger: options.logger, ...(options.retentionPassMs ? { intervalMs: options.retentionPassMs } : {}) });
  janitor.start();

  return {
    workers,
    async close(graceMs = 25_000) {
      const closing = Promise.all(workers.map((w) => w.close()));
      const inTime = await Promise.race([closing.then(() => true), sleep(graceMs, false, { ref: false })]);
      // Past the grace period the active jobs are dropped unfinished; their locks lapse and another worker takes them.
      if (!inTime) await Promise.all(workers.map((w) => w.close(true)));
      await reconciler.stop();
      await janitor.stop();
      await aborts.close();
      await queues.close();
      await options.tools.close?.();
      await connection.quit().catch(() => undefined);
    },
  };
}
