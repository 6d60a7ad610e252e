/**
 * One HTTP exchange with a tool service under a per-attempt timeout and the caller's signal,
 * with every failure turned into a typed ToolCallError.
 */
import {
  ToolAbortedError,
  ToolCallError,
  ToolNetworkError,
  ToolProtocolError,
  ToolTimeoutError,
  errorFromStatus,
  parseRetryAfter,
} from './errors.js';

export interface AttemptScope {
  service: string;
  tool?: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** Runs `work` with a signal that fires on the caller's abort or the timeout, whichever is first. */
export async function withinAttempt<T>(scope: AttemptScope, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = AbortSignal.timeout(scope.timeoutMs);
  const signal = scope.signal ? AbortSignal.any([scope.signal, timeout]) : timeout;
  try {
    return await work(signal);
  } catch (error) {
    throw classifyFailure(scope, error, timeout);
  }
}

export function classifyFailure(scope: AttemptScope, error: unknown, timeout?: AbortSignal): ToolCallError {
  const where = { service: scope.service, tool: scope.tool };
  if (scope.signal?.aborted) return new ToolAbortedError({ ...where, code: 'aborted', message: `Call to ${scope.service} was cancelled`, cause: error });
  if (error instanceof ToolCallError) return error;
  if (timeout?.aborted) {
    return new ToolTimeoutError({ ...where, code: 'timeout', message: `${scope.service} did not answer within ${scope.timeoutMs} ms`, cause: error });
  }
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return new ToolNetworkError({ ...where, code: 'network_error', message: `Could not reach ${scope.service}: ${reason}`, cause: error });
}

/** Throws the typed error for a non-2xx reply; returns the reply otherwise. */
export async function ensureOk(scope: AttemptScope, res: Response): Promise<Response> {
  if (res.ok) return res;
  const text = await res.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a non-JSON error page: keep the text as the message
  }
  throw errorFromStatus({ status: res.status, body, service: scope.service, tool: scope.tool, retryAfterMs: parseRetryAfter(res.headers.get('retry-after')) });
}

/** Reads a JSON body; a body that is not JSON breaks the protocol. */
export async function readJson(scope: AttemptScope, res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ToolProtocolError({ service: scope.service, tool: scope.tool, code: 'invalid_reply', message: `${scope.service} answered with a body that is not JSON`, details: { body: text.slice(0, 200) }, cause });
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
