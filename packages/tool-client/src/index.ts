export { ToolServiceClient } from './client.js';
export { serviceDirectory } from './service-directory.js';
export type { ServiceDirectory } from './service-directory.js';
export type { ToolClientOptions, ToolCallOptions, HealthResult } from './client.js';
export { createStoryToolClients, callStoryTool } from './story-clients.js';
export type { StoryToolClients } from './story-clients.js';
export {
  ToolCallError,
  ToolRejectedError,
  ToolUnavailableError,
  ToolNetworkError,
  ToolTimeoutError,
  ToolStreamError,
  ToolAbortedError,
  CircuitOpenError,
  ToolInputError,
  ToolProtocolError,
  ToolTaskFailedError,
  ToolTaskLostError,
  ToolDeadlineError,
  errorFromStatus,
  parseRetryAfter,
} from './errors.js';
export { resolvePollUrl, DEFAULT_POLL } from './async-call.js';
export type { PollOptions, RemoteTask } from './async-call.js';
export { DEFAULT_RETRY, withRetries } from './retry.js';
export type { RetryOptions, RetryNotice } from './retry.js';
export { DEFAULT_BREAKER } from './breaker.js';
export type { BreakerOptions, BreakerState } from './breaker.js';
export { readEventStream } from './sse.js';
export { InputSchemas } from './input-schemas.js';
export { callOutcome, CALL_OUTCOMES } from './call-record.js';
export type { CallOutcome, ToolCallRecord } from './call-record.js';
