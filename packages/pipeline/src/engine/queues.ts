/**
 * The BullMQ handles a process needs to start pipelines: the dispatch queue, on a connection of
 * the caller's, under the deployment's prefix (step queues are in StepQueues).
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullmqTelemetry } from '@switchyard/telemetry';
import { BULLMQ_EVENTS_MAXLEN, dispatchJobId, JOB_CATALOG, QUEUES, type DispatchJob } from '../catalog.js';
import { StepQueues } from './step-jobs.js';

export interface PipelineQueues {
  dispatch: Queue<DispatchJob>;
  /** The step queues, opened as steps are enqueued. */
  steps: StepQueues;
  /** Asks a worker to enqueue a batch's runs, in chunks, resuming where it stopped. */
  dispatchBatch(batchId: string, pipeline: { name: string; version: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * @param options.connection an ioredis client (BullMQ shares it for non-blocking commands)
 * @param options.prefix BullMQ prefix; the run store uses the same one
 * @param options.onError BullMQ's errors of these handles; without a listener BullMQ prints them
 *   (default: ignored, since they are the shared connection's, reported where it is followed)
 */
export function createPipelineQueues(options: { connection: Redis; prefix: string; onError?: (error: Error) => void }): PipelineQueues {
  const dispatch = new Queue<DispatchJob>(QUEUES.dispatch, { connection: options.connection, prefix: options.prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } }, ...bullmqTelemetry() });
  const onError = options.onError ?? (() => undefined);
  dispatch.on('error', onError);
  const steps = new StepQueues({ connection: options.connection, prefix: options.prefix, onError });
  return {
    dispatch,
    steps,
    async dispatchBatch(batchId, pipeline) {
      await dispatch.add('runs.dispatch', { batch_id: batchId, pipeline }, { ...JOB_CATALOG['runs.dispatch'].options, jobId: dispatchJobId(batchId) });
    },
    async close() {
      await Promise.all([dispatch.close(), steps.close()]);
    },
  };
}
