/**
 * Retries with exponential backoff and jitter (p-retry, whose waits the caller's signal cuts
 * short), for the errors that may pass; a `Retry-After` from the service is waited out first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { CircuitOpenError, ToolCallError, ToolUnavailableError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  retries: number;
  /** First backoff in ms, before jitter (default 200). */
  minDelayMs: number;
  /** Largest backoff in ms (default 5000). */
  maxDelayMs: number;
  /** Growth per retry (default 2). */
  factor: number;
  /** Longest `Retry-After` honoured, in ms; a longer one fails the call instead (default 60000). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, minDelayMs: 200, maxDelayMs: 5000, factor: 2, maxRetryAfterMs: 60_000 };

export interface RetryNotice {
  attempt: number;
  error: ToolCallError;
  retriesLeft: number;
}

function worthRetrying(error: Error, retry: RetryOptions): error is ToolCallError {
  if (!(error instanceof ToolCallError) || !error.retryable || error instanceof CircuitOpenError) return false;
  return !(error instanceof ToolUnavailableError && (error.retryAfterMs ?? 0) > retry.maxRetryAfterMs);
}

export async function withRetries<T>(options: {
  retry: RetryOptions;
  signal?: AbortSignal | undefined;
  onRetry?: ((notice: RetryNotice) => void) | undefined;
  /** Errors not to retry here even though they are retryable in general. */
  keep?: ((error: ToolCallError) => boolean) | undefined;
  run: (attempt: number) => Promise<T>;
}): Promise<T> {
  const { retry } = options;
  const worth = (error: Error): error is ToolCallError => worthRetrying(error, retry) && !options.keep?.(error);
  return pRetry((attempt) => options.run(attempt), {
    retries: retry.retries,
    factor: retry.factor,
    minTimeout: retry.minDelayMs,
    maxTimeout: retry.maxDelayMs,
    randomize: true,
    signal: options.signal,
    shouldRetry: ({ error }) => worth(error),
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft <= 0 || !worth(error)) return;
      options.onRetry?.({ attempt: attemptNumber, error, retriesLeft });
      if (error instanceof ToolUnavailableError && error.retryAfterMs) {
        await sleep(error.retryAfterMs, undefined, { signal: options.signal });
      }
    },
  });
}
