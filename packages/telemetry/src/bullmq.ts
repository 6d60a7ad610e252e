/**
 * BullMQ's own telemetry (bullmq-otel): a producer span per job added, whose context is stored in
 * the job's options, and a consumer span per job processed, its child. The processor runs inside
 * that span, so the jobs a step adds (its dependents, a map's branches, a batch's first steps)
 * and its tool calls join the trace of the request that started the run.
 */
import { BullMQOtel } from 'bullmq-otel';
import { tracingEnabled } from './state.js';

let shared: BullMQOtel | undefined;

/**
 * The `telemetry` option of a BullMQ Queue, Worker or FlowProducer, to spread into its options:
 * empty while tracing is off, so BullMQ does no telemetry work at all.
 */
export function bullmqTelemetry(): { telemetry?: BullMQOtel } {
  if (!tracingEnabled()) return {};
  shared ??= new BullMQOtel({ tracerName: 'bullmq' });
  return { telemetry: shared };
}
