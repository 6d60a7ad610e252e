/**
 * Circuit breaking per service (cockatiel): after `failureThreshold` failures in a row the
 * service is not called for `halfOpenAfterMs`; then one call is let through as a probe, and the
 * client checks `GET /health` before it.
 */
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, IsolatedCircuitError, type CircuitBreakerPolicy } from 'cockatiel';
import { CircuitOpenError, ToolCallError } from './errors.js';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit (default 5). */
  failureThreshold: number;
  /** Milliseconds the circuit stays open before a probe (default 10000). */
  halfOpenAfterMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failureThreshold: 5, halfOpenAfterMs: 10_000 };

export type BreakerState = 'closed' | 'open' | 'half-open';

const STATE_NAMES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'open',
};

/** Failures that say the service is unwell: not 4xx refusals, not the caller's own abort. */
const countsAsFailure = (error: Error) => error instanceof ToolCallError && error.retryable && !(error instanceof CircuitOpenError);

export class ServiceBreaker {
  readonly #policy: CircuitBreakerPolicy;
  readonly #service: string;

  constructor(service: string, options: BreakerOptions) {
    this.#service = service;
    this.#policy = circuitBreaker(handleWhen(countsAsFailure), {
      halfOpenAfter: options.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(options.failureThreshold),
    });
  }

  get state(): BreakerState {
    return STATE_NAMES[this.#policy.state];
  }

  onStateChange(listener: (state: BreakerState) => void): void {
    this.#policy.onStateChange((state) => listener(STATE_NAMES[state]));
  }

  /** Runs `fn` through the breaker; `probe` is true when this call is the half-open probe. */
  async execute<T>(fn: (probe: boolean) => Promise<T>, tool?: string): Promise<T> {
    try {
      // cockatiel calls the probe before it records the half-open state, so any state but closed means "probe".
      return await this.#policy.execute(() => fn(this.#policy.state !== CircuitState.Closed));
    } catch (error) {
      if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
        throw new CircuitOpenError({ service: this.#service, tool, code: 'circuit_open', message: `${this.#service} is failing; calls are paused until it recovers`, cause: error });
      }
      throw error;
    }
  }
}
