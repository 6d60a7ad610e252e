/**
 * Circuit breaking per service (cockatiel's sampling breaker): the circuit opens when at least
 * `failureRatio` of the calls in the last `windowMs` failed, once the window holds
 * `minimumCalls`; then the service is not called for `halfOpenAfterMs`, after which one call is
 * let through as a probe, and the client checks `GET /health` before it.
 *
 * A ratio, not a run of consecutive failures: a service that fails 30 % of its calls is flaky but
 * working, and must keep being called (the retries absorb its failures), while one run's streak of
 * bad luck must not pause the service for every run in the process.
 */
import { BrokenCircuitError, CircuitState, SamplingBreaker, circuitBreaker, handleWhen, IsolatedCircuitError, type CircuitBreakerPolicy } from 'cockatiel';
import { CircuitOpenError, ToolCallError } from './errors.js';

export interface BreakerOptions {
  /**
   * Share of failed calls in the window that opens the circuit, 0–1 (default 0.7: far enough
   * above a flaky service's 30 % that a window of 20 calls opens it about once in 30,000).
   */
  failureRatio: number;
  /** Length of the sampling window in ms (default 20000). */
  windowMs: number;
  /** Calls the window must hold before the ratio can open the circuit (default 20). */
  minimumCalls: number;
  /** Milliseconds the circuit stays open before a probe (default 10000). */
  halfOpenAfterMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failureRatio: 0.7, windowMs: 20_000, minimumCalls: 20, halfOpenAfterMs: 10_000 };

export type BreakerState = 'closed' | 'open' | 'half-open';

const STATE_NAMES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'open',
};

/** While a probe is out, other callers are told to come back after this long. */
const PROBE_WAIT_MS = 1000;

/** Failures that say the service is unwell: not 4xx refusals, not the caller's own abort. */
const countsAsFailure = (error: Error) => error instanceof ToolCallError && error.retryable && !(error instanceof CircuitOpenError);

export class ServiceBreaker {
  readonly #policy: CircuitBreakerPolicy;
  readonly #service: string;
  readonly #halfOpenAfterMs: number;
  #openedAt = 0;
  #lastFailure: ToolCallError | undefined;

  constructor(service: string, options: BreakerOptions) {
    this.#service = service;
    this.#halfOpenAfterMs = options.halfOpenAfterMs;
    this.#policy = circuitBreaker(handleWhen(countsAsFailure), {
      halfOpenAfter: options.halfOpenAfterMs,
      // cockatiel asks for a rate: minimumCalls over the window.
      breaker: new SamplingBreaker({ threshold: options.failureRatio, duration: options.windowMs, minimumRps: (options.minimumCalls * 1000) / options.windowMs }),
    });
    this.#policy.onStateChange((state) => {
      if (state === CircuitState.Open) this.#openedAt = Date.now();
    });
    this.#policy.onFailure(({ reason }) => {
      if ('error' in reason && reason.error instanceof ToolCallError && countsAsFailure(reason.error)) this.#lastFailure = reason.error;
    });
  }

  get state(): BreakerState {
    return STATE_NAMES[this.#policy.state];
  }

  onStateChange(listener: (state: BreakerState) => void): void {
    this.#policy.onStateChange((state) => listener(STATE_NAMES[state]));
  }

  /** Ms until a probe may go through: 0 when the circuit is closed. */
  retryAfterMs(now = Date.now()): number {
    switch (this.#policy.state) {
      case CircuitState.Closed:
        return 0;
      case CircuitState.HalfOpen:
        return PROBE_WAIT_MS;
      default:
        return Math.max(PROBE_WAIT_MS, this.#openedAt + this.#halfOpenAfterMs - now);
    }
  }

  /** Runs `fn` through the breaker; `probe` is true when this call is the half-open probe. */
  async execute<T>(fn: (probe: boolean) => Promise<T>, tool?: string): Promise<T> {
    try {
      // cockatiel calls the probe before it records the half-open state, so any state but closed means "probe".
      return await this.#policy.execute(() => fn(this.#policy.state !== CircuitState.Closed));
    } catch (error) {
      if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
        throw new CircuitOpenError({
          service: this.#service,
          tool,
          code: 'circuit_open',
          message: `${this.#service} is failing; calls are paused until it recovers`,
          cause: error,
          retryAfterMs: this.retryAfterMs(),
          lastFailure: this.#lastFailure,
        });
      }
      throw error;
    }
  }
}
