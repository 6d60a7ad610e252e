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
}

export function defaultModelFaults(overrides: Partial<ModelFaultKnobs> = {}): ModelFaultKnobs {
  return { latencyMs: 0, failureRate: 0, failureStatus: 429, failNext: 0, retryAfterMs: 0, tokenDelayMs: 0, ...overrides };
}
