/**
 * Fault knobs of the offline model, all off by default. The object is live: a test may change a
 * knob on a running endpoint and the next request sees it.
 */
export interface ModelFaultKnobs {
  /** Milliseconds added before each completion answers (or starts streaming). Default 0. */
  latencyMs: number;
  /** Share of completion requests that fail, 0–1. Default 0. */
  failureRate: number;
  /** Status the injected failures use: 500, or 429 (rate limited). Default 429. */
  failureStatus: 500 | 429;
  /** The next N completion requests fail regardless of the rate (deterministic). Default 0. */
  failNext: number;
  /**
   * How long an injected 429 asks the client to wait, in ms: sent as `Retry-After` (seconds,
   * rounded up) and `retry-after-ms` (which OpenAI's client reads first); 0 sends neither. Default 0.
   */
  retryAfterMs: number;
  /** Milliseconds between streamed chunks (a token's delay). Default 0. */
  tokenDelayMs: number;
  /**
   * A provider's rate limit: at most `requests` completion requests per fixed window of `windowMs`
   * (windows start at multiples of windowMs on the clock); the rest are answered 429 with
   * `Retry-After` (and `retry-after-ms`) saying when the window ends. Default: none.
   */
  rateLimit: { requests: number; windowMs: number } | null;
}

/** Every completion request's arrival, live, in a bounded log: what the provider saw, for tests and benchmarks. */
export interface RateLimitLog {
  /** Requests the rate-limit knob admitted (all of them when there is no limit). */
  admitted: number;
  /** Requests it answered 429. */
  refused: number;
  /** Arrival times (ms, Date.now()) of the last RATE_LOG_SIZE completion requests, and whether the knob admitted each. */
  arrivals: { at: number; admitted: boolean }[];
}

/** Arrivals kept in a RateLimitLog. */
export const RATE_LOG_SIZE = 20_000;

export function emptyRateLimitLog(): RateLimitLog {
  return { admitted: 0, refused: 0, arrivals: [] };
}

/**
 * Logs one request's arrival and judges it against the rate-limit knob: null when it is admitted
 * (always, with no limit), else the ms until its window ends (the Retry-After to send).
 */
export function rateLimitWait(faults: ModelFaultKnobs, log: RateLimitLog, now = Date.now()): number | null {
  const limit = faults.rateLimit;
  const windowStart = limit ? now - (now % limit.windowMs) : now;
  const admitted = !limit || countSince(log, windowStart) < limit.requests;
  log.arrivals.push({ at: now, admitted });
  if (log.arrivals.length > RATE_LOG_SIZE) log.arrivals.splice(0, log.arrivals.length - RATE_LOG_SIZE);
  if (admitted) {
    log.admitted += 1;
    return null;
  }
  log.refused += 1;
  return windowStart + (limit?.windowMs ?? 0) - now;
}

function countSince(log: RateLimitLog, since: number): number {
  let count = 0;
  for (let i = log.arrivals.length - 1; i >= 0; i -= 1) {
    const arrival = log.arrivals[i] as { at: number; admitted: boolean };
    if (arrival.at < since) break;
    if (arrival.admitted) count += 1;
  }
  return count;
}

export function defaultModelFaults(overrides: Partial<ModelFaultKnobs> = {}): ModelFaultKnobs {
  return { latencyMs: 0, failureRate: 0, failureStatus: 429, failNext: 0, retryAfterMs: 0, tokenDelayMs: 0, rateLimit: null, ...overrides };
}
