/**
 * How long to wait before another attempt of a turn, and the wait itself, cut short by the signal.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelCallError } from './errors.js';

export interface BackoffOptions {
  /** The first retry's wait before jitter; each later one doubles it. */
  baseBackoffMs: number;
  /** The longest wait backoff gives (a server's Retry-After is bounded by maxRetryAfterMs instead). */
  maxBackoffMs: number;
  /** The longest Retry-After honoured: a server asking for more fails the turn at once. */
  maxRetryAfterMs: number;
}

/**
 * The wait before attempt `attempt + 1`: the server's Retry-After when it gave one, else
 * "full jitter" exponential backoff (a random wait up to base·2^(attempt-1), capped), so many
 * turns failing at once do not all come back at once. `random` is injectable for tests.
 */
export function retryDelayMs(error: ModelCallError, attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  if (error.retryAfterMs !== undefined) {
    if (error.retryAfterMs > options.maxRetryAfterMs) {
      throw new ModelCallError({
        code: error.code,
        status: error.status,
        retryAfterMs: error.retryAfterMs,
        message: `${error.message} (the server asked to wait ${error.retryAfterMs} ms, more than the ${options.maxRetryAfterMs} ms allowed)`,
        cause: error,
      });
    }
    return error.retryAfterMs;
  }
  const ceiling = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** (attempt - 1));
  // Half fixed, half random: never a zero wait, still spread out.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits `ms`, or rejects with `model_cancelled` as soon as the signal fires. */
export async function waitOrCancel(ms: number, signal: AbortSignal, model: string): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw cancelled(model, signal);
    throw error;
  }
}

export function cancelled(model: string, signal: AbortSignal): ModelCallError {
  return new ModelCallError({ code: 'model_cancelled', message: `model ${model}: the turn was cancelled`, cause: signal.reason });
}
