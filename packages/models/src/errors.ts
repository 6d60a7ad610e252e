/**
 * What a model turn can fail with, and which failures another attempt may fix. The engine reads
 * `code` (for the step's error) and the client reads `retryable` (for its own retries).
 */

export type ModelCallErrorCode =
  /** The step names a model that is not configured. */
  | 'model_unknown'
  /** Connection refused or broken, 5xx, a timed-out attempt: retryable. */
  | 'model_unavailable'
  /** 429: retryable, after `retryAfterMs` when the server said. */
  | 'model_rate_limited'
  /** Any other 4xx (bad request, bad key, unknown model id, context too long): final. */
  | 'model_refused'
  /** A reply past the bounds, or not a chat completion: final. */
  | 'model_reply_invalid'
  /** The caller's signal fired. */
  | 'model_cancelled';

export class ModelCallError extends Error {
  override name = 'ModelCallError';
  readonly code: ModelCallErrorCode;
  readonly retryable: boolean;
  /** The HTTP status the model answered, when it answered one. */
  readonly status?: number;
  /** How long the server asked to wait (`retry-after-ms` or `Retry-After`), when it did. */
  readonly retryAfterMs?: number;
  constructor(fields: { code: ModelCallErrorCode; message: string; status?: number | undefined; retryAfterMs?: number | undefined; cause?: unknown }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = fields.code;
    this.retryable = fields.code === 'model_unavailable' || fields.code === 'model_rate_limited';
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
  }
}

/** Statuses another attempt may get past. */
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);
/** Longest message text kept from a model's error body: it is the model server's text, not ours. */
const MESSAGE_CHARS = 500;

/**
 * Maps what LangChain (or the openai SDK under it) threw to a {@link ModelCallError}. LangChain
 * passes the SDK's `APIError` through (adding a troubleshooting URL to some messages), so
 * `status` and `headers` are read from the error itself.
 */
export function toModelCallError(error: unknown, context: { model: string }): ModelCallError {
  if (error instanceof ModelCallError) return error;
  const status = statusOf(error);
  const message = `model ${context.model}: ${firstLine(error)}`;
  if (status !== undefined) {
    const retryAfterMs = retryAfterOf(error);
    if (status === 429) return new ModelCallError({ code: 'model_rate_limited', message, status, retryAfterMs, cause: error });
    if (RETRYABLE_STATUS.has(status) || status >= 500) return new ModelCallError({ code: 'model_unavailable', message, status, retryAfterMs, cause: error });
    return new ModelCallError({ code: 'model_refused', message, status, cause: error });
  }
  if (isContextOverflow(error)) return new ModelCallError({ code: 'model_refused', message, cause: error });
  // No status: the connection failed or broke mid-stream, or the reply could not be read.
  if (isBadReply(error)) return new ModelCallError({ code: 'model_reply_invalid', message, cause: error });
  return new ModelCallError({ code: 'model_unavailable', message, cause: error });
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status <= 599 ? status : undefined;
}

/**
 * The wait a 429/503 asked for: `retry-after-ms` (OpenAI's, in ms) first, then `Retry-After`
 * (seconds, or an HTTP date). Undefined when neither is there or readable.
 */
export function retryAfterOf(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  const read = (name: string): string | null | undefined => {
    if (headers instanceof Headers) return headers.get(name);
    if (headers && typeof headers === 'object') {
      const value = (headers as Record<string, unknown>)[name];
      return typeof value === 'string' ? value : undefined;
    }
    return undefined;
  };
  const ms = Number.parseFloat(read('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const text = read('retry-after');
  if (!text) return undefined;
  const seconds = Number.parseFloat(text);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function isContextOverflow(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ContextOverflowError' || /context_length_exceeded|maximum context length/.test(error.message));
}

/** A reply that arrived but is not a chat completion (a 200 with HTML, broken SSE JSON). */
function isBadReply(error: unknown): boolean {
  return error instanceof SyntaxError || (error instanceof Error && /Unexpected token|JSON|could not parse/i.test(error.message) && !/fetch failed|ECONN|socket|terminated/i.test(error.message));
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS)}…` : line;
}
