/**
 * What can go wrong calling a tool service, as typed errors. `retryable` says whether the same
 * call may succeed later: the client retries those itself, and a queue worker should turn the
 * others into a failure that is not retried (BullMQ's UnrecoverableError).
 */
import type { ErrorDetail } from '@switchyard/contracts';

interface ToolErrorFields {
  service: string;
  tool?: string | undefined;
  code: string;
  message: string;
  details?: unknown;
  cause?: unknown;
}

export abstract class ToolCallError extends Error {
  abstract readonly retryable: boolean;
  readonly service: string;
  readonly tool: string | undefined;
  readonly code: string;
  readonly details: unknown;

  constructor(fields: ToolErrorFields) {
    super(fields.message, { cause: fields.cause });
    this.service = fields.service;
    this.tool = fields.tool;
    this.code = fields.code;
    this.details = fields.details;
  }

  toJSON(): ErrorDetail & { retryable: boolean; service: string; tool?: string | undefined } {
    return { code: this.code, message: this.message, details: this.details, retryable: this.retryable, service: this.service, tool: this.tool };
  }
}

/** The service refused the request (400, 401, 403, 404, 422 and other 4xx but 429): retrying changes nothing. */
export class ToolRejectedError extends ToolCallError {
  override name = 'ToolRejectedError';
  readonly retryable = false;
  readonly status: number;
  constructor(fields: ToolErrorFields & { status: number }) {
    super(fields);
    this.status = fields.status;
  }
}

/** The service failed or is overloaded (5xx, 429): worth another try, after `retryAfterMs` when it said so. */
export class ToolUnavailableError extends ToolCallError {
  override name = 'ToolUnavailableError';
  readonly retryable = true;
  readonly status: number;
  readonly retryAfterMs: number | undefined;
  constructor(fields: ToolErrorFields & { status: number; retryAfterMs?: number | undefined }) {
    super(fields);
    this.status = fields.status;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** No connection, or it broke before a reply. */
export class ToolNetworkError extends ToolCallError {
  override name = 'ToolNetworkError';
  readonly retryable = true;
}

/** One attempt took longer than the service's timeout. */
export class ToolTimeoutError extends ToolCallError {
  override name = 'ToolTimeoutError';
  readonly retryable = true;
}

/** A stream ended before its `done` event, or the service sent an `error` event that may pass. */
export class ToolStreamError extends ToolCallError {
  override name = 'ToolStreamError';
  readonly retryable: boolean;
  constructor(fields: ToolErrorFields & { retryable: boolean }) {
    super(fields);
    this.retryable = fields.retryable;
  }
}

/** The caller's AbortSignal fired. */
export class ToolAbortedError extends ToolCallError {
  override name = 'ToolAbortedError';
  readonly retryable = false;
}

/**
 * The breaker is open: too many of the service's recent calls failed, and it is not called until
 * it is probed again. Nothing was sent, so this is no failed call of its own: a caller should wait
 * `retryAfterMs` and try again, and report `lastFailure` (the service's own last error) if it gives up.
 */
export class CircuitOpenError extends ToolCallError {
  override name = 'CircuitOpenError';
  readonly retryable = true;
  /** When the breaker may let a probe through, in ms from when this was thrown. */
  readonly retryAfterMs: number;
  /** The last real failure the breaker counted, if it still knows it. */
  readonly lastFailure: ToolCallError | undefined;
  constructor(fields: ToolErrorFields & { retryAfterMs: number; lastFailure?: ToolCallError | undefined }) {
    super(fields);
    this.retryAfterMs = fields.retryAfterMs;
    this.lastFailure = fields.lastFailure;
  }
}

/** The arguments do not satisfy the tool's published inputSchema (or the tool is not published). */
export class ToolInputError extends ToolCallError {
  override name = 'ToolInputError';
  readonly retryable = false;
}

/** The reply broke the protocol: wrong shape, invalid output, or a poll_url off the service's origin. */
export class ToolProtocolError extends ToolCallError {
  override name = 'ToolProtocolError';
  readonly retryable = false;
}

/** An async task finished as `failed`. */
export class ToolTaskFailedError extends ToolCallError {
  override name = 'ToolTaskFailedError';
  readonly retryable = false;
}

/** The service no longer knows an async task (it restarted, or the task expired): start the work again. */
export class ToolTaskLostError extends ToolCallError {
  override name = 'ToolTaskLostError';
  readonly retryable = true;
}

/** An async task is still processing at the overall deadline. */
export class ToolDeadlineError extends ToolCallError {
  override name = 'ToolDeadlineError';
  readonly retryable = false;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** What to say when a service refuses the key: the configuration to fix, not just the status. */
export const keyRefusedMessage = (service: string, status: number) =>
  `${service} refused the API key (HTTP ${status}): check TOOL_SERVICE_API_KEY (and ${service.toUpperCase()}_SERVICE_URL)`;

/** Maps a non-2xx reply to its typed error, keeping the service's own code and message. */
export function errorFromStatus(options: {
  status: number;
  body: unknown;
  service: string;
  tool?: string | undefined;
  retryAfterMs?: number | undefined;
}): ToolRejectedError | ToolUnavailableError {
  const detail = readErrorDetail(options.body);
  const fields = {
    service: options.service,
    tool: options.tool,
    status: options.status,
    code: detail?.code ?? `http_${options.status}`,
    message: detail?.message ?? `${options.service} answered HTTP ${options.status}`,
    details: detail?.details,
  };
  if (RETRYABLE_STATUS.has(options.status) || options.status >= 500) return new ToolUnavailableError({ ...fields, retryAfterMs: options.retryAfterMs });
  if (options.status === 401 || options.status === 403) return new ToolRejectedError({ ...fields, code: 'tool_auth_refused', message: keyRefusedMessage(options.service, options.status), details: { service_code: fields.code, service_message: fields.message } });
  return new ToolRejectedError(fields);
}

/** The `{error:{code,message,details}}` of a reply body, or its inner object; undefined otherwise. */
export function readErrorDetail(body: unknown): ErrorDetail | undefined {
  const inner = body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : body;
  if (inner && typeof inner === 'object' && 'message' in inner) {
    const { code, message, details } = inner as { code?: unknown; message: unknown; details?: unknown };
    return { code: typeof code === 'string' ? code : 'error', message: String(message), details };
  }
  if (typeof inner === 'string') return { code: 'error', message: inner };
  return undefined;
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
