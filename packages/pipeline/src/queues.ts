/**
 * The BullMQ handles a process needs to start pipelines: one FlowProducer and the dispatch queue,
 * on a connection of the caller's, under the deployment's prefix.
 */
import { FlowProducer, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { BULLMQ_EVENTS_MAXLEN, dispatchJobId, JOB_CATALOG, QUEUES, type DispatchJob } from './catalog.js';

export interface PipelineQueues {
  flows: FlowProducer;
  dispatch: Queue<DispatchJob>;
  /** Asks a worker to enqueue a batch's runs, in chunks, resuming where it stopped. */
  dispatchBatch(batchId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * @param options.connection an ioredis client (BullMQ shares it for non-blocking commands)
 * @param options.prefix BullMQ prefix; the run store uses the same one
 * @param options.onError BullMQ's errors of these handles; without a listener BullMQ prints them
 *   (default: ignored, since they are the shared connection's, reported where it is followed)
 */
export function createPipelineQueues(options: { connection: Redis; prefix: string; onError?: (error: Error) => void }): PipelineQueues {
  const flows = new FlowProducer({ connection: options.connection, prefix: options.prefix });
  const dispatch = new Queue<DispatchJob>(QUEUES.dispatch, { connection: options.connection, prefix: options.prefix, streams: { events: { maxLen: BULLMQ_EVENTS_MAXLEN } } });
  const onError = options.onError ?? (() => undefined);
  flows.on('error', onError);
  dispatch.on('error', onError);
  return {
    flows,
    dispatch,
    async dispatchBatch(batchId) {
      await dispatch.add('runs.dispatch', { batch_id: batchId }, { ...JOB_CATALOG['runs.dispatch'].options, jobId: dispatchJobId(batchId) });
    },
    async close() {
      await Promise.all([flows.close(), dispatch.close()]);
    },
  };
}
