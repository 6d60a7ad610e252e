/**
 * The HTTP tool-service protocol of seed 004: discovery, execution (sync, async, stream),
 * task polling, health and the error body. Every reply shape keeps unknown fields, so a service
 * that adds its own metadata is not rejected.
 */
import { z } from 'zod';

/** JSON Schema object as published by a tool; validated structurally by ajv, not by zod. */
export const JsonSchemaObject = z.record(z.string(), z.unknown());

export const ToolDescriptor = z.looseObject({
  name: z.string().min(1),
  description: z.string().default(''),
  inputSchema: JsonSchemaObject,
});
export type ToolDescriptor = z.infer<typeof ToolDescriptor>;

/** `GET /tools` answers a bare array (seed 004 §2.2). */
export const ToolList = z.array(ToolDescriptor);

/** Metadata of a sync run (seed 004 §2.3). `execution_time` is in seconds. */
export const RunMetadata = z.looseObject({
  execution_time: z.number().nonnegative(),
  status: z.string(),
});

/** The sync reply of `POST /run/{tool}`: the tool's output under `result` (seed 004 §2.3). */
export const RunEnvelope = z.looseObject({
  result: z.unknown(),
  metadata: RunMetadata,
});
export type RunEnvelope = z.infer<typeof RunEnvelope>;

/** The reply of `POST /run/{tool}?async=true` (seed 004 §4.1). */
export const AsyncAccepted = z.looseObject({
  task_id: z.string().min(1),
  status: z.literal('processing'),
  poll_url: z.string().min(1),
});
export type AsyncAccepted = z.infer<typeof AsyncAccepted>;

export const ErrorDetail = z.looseObject({
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** Every error reply of every HTTP service in the project (seed 004 §5). */
export const ErrorBody = z.object({ error: ErrorDetail });
export type ErrorBody = z.infer<typeof ErrorBody>;

export const TaskStatusValue = z.enum(['processing', 'completed', 'failed']);
export type TaskStatusValue = z.infer<typeof TaskStatusValue>;

/** `GET /tasks/{id}`: `result` is the tool output, the same value a sync call carries under `result`. */
export const TaskStatus = z.looseObject({
  task_id: z.string().min(1),
  status: TaskStatusValue,
  result: z.unknown().optional(),
  error: z.union([ErrorDetail, z.string()]).optional(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

/** SSE `progress` event data (seed 004 §4.2). `completed` is a percentage, 0–100. */
export const StreamProgress = z.looseObject({
  completed: z.number(),
  message: z.string().optional(),
});
export type StreamProgress = z.infer<typeof StreamProgress>;

/** SSE `content` event data. */
export const StreamContent = z.looseObject({ chunk: z.string() });
export type StreamContent = z.infer<typeof StreamContent>;

/** SSE `done` event data; `result` may be absent, and the caller then builds it from the chunks. */
export const StreamDone = z.looseObject({
  status: z.string(),
  result: z.unknown().optional(),
});
export type StreamDone = z.infer<typeof StreamDone>;

/** SSE `error` event data: the error body, or its inner detail. */
export const StreamError = z.union([ErrorBody, ErrorDetail]);

export const StreamEventName = z.enum(['progress', 'content', 'done', 'error']);
export type StreamEventName = z.infer<typeof StreamEventName>;

export const HealthReport = z.looseObject({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  service: z.string().optional(),
});
export type HealthReport = z.infer<typeof HealthReport>;

/** Error codes the reference services and the project's HTTP services use. */
export const ErrorCodes = {
  invalidParameters: 'invalid_parameters',
  invalidJson: 'invalid_json',
  toolNotFound: 'tool_not_found',
  taskNotFound: 'task_not_found',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  unauthorized: 'unauthorized',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  unsupportedEncoding: 'unsupported_encoding',
  internalError: 'internal_error',
  serviceUnavailable: 'service_unavailable',
} as const;
