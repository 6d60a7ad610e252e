/**
 * What a call to the API can end in besides its answer: the API's refusal (an error body), no
 * answer at all, or an event stream that cannot be followed. Each message is one line, fit to
 * show a person as it is.
 */

/** The API answered with an error status; `code` and `message` are the API's own. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  /** The call, as `METHOD /path`. */
  readonly call: string;

  constructor(options: { status: number; code: string; message: string; details?: Record<string, unknown>; call: string }) {
    super(options.message);
    this.status = options.status;
    this.code = options.code;
    this.details = options.details ?? {};
    this.call = options.call;
  }
}

/** No answer: the API could not be reached, or did not answer within the call's budget. */
export class ApiUnreachable extends Error {
  override name = 'ApiUnreachable';
  readonly url: string;

  constructor(url: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.url = url;
  }
}

/** An event stream could not be had or kept: a refusal, or more breaks in a row than allowed. */
export class EventsUnavailable extends Error {
  override name = 'EventsUnavailable';
  /** The HTTP status of a refusal, when there was one. */
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/** Why fetch failed, in a few words: `connection refused`, `no answer within 30 s`, … */
export function networkProblem(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'aborted';
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  const code = cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ECONNRESET') return 'connection reset';
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}
