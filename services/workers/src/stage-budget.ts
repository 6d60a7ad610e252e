/**
 * How long a stage keeps trying. Two budgets, both configurable: attempts that ended in a real
 * failed call (each attempt is one tool call with the client's own retries), and wall time spent
 * waiting for a service whose breaker is open. Meeting an open breaker is no failed call: the job
 * is delayed until the breaker may let a probe through, and spends no attempt.
 */
import type { ToolCallError } from '@switchyard/tool-client';
import { CircuitOpenError } from '@switchyard/tool-client';

export interface StageBudget {
  /**
   * Attempts a stage may spend on real failures before it gives up (default 3), within the
   * catalog's STAGE_JOB_OPTIONS.attempts.
   */
  maxAttempts: number;
  /** Ms a stage may wait on open breakers, from the first time it met one (default 600000). */
  maxBreakerWaitMs: number;
}

export const DEFAULT_STAGE_BUDGET: StageBudget = { maxAttempts: 3, maxBreakerWaitMs: 600_000 };

/** Spread of wake-ups, so stages delayed by one breaker do not all come back at once. */
const WAKE_JITTER_MS = 1000;

/** The CircuitOpenError behind `error` (a stage may wrap the client's error), if any. */
export function circuitOpenCause(error: unknown): CircuitOpenError | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof CircuitOpenError) return e;
  }
  return undefined;
}

export type BreakerDecision =
  | { kind: 'wait'; until: number; since: number }
  /** The wait budget is spent: fail with the service's last real error when the breaker knew it. */
  | { kind: 'give-up'; error: ToolCallError };

/** What to do about a stage that met an open breaker, `since` being when it first met one (if it has). */
export function decideBreakerWait(options: { error: CircuitOpenError; since: number | undefined; budget: StageBudget; now?: number; random?: () => number }): BreakerDecision {
  const now = options.now ?? Date.now();
  const since = options.since ?? now;
  const until = now + options.error.retryAfterMs + Math.floor((options.random ?? Math.random)() * WAKE_JITTER_MS);
  if (until - since > options.budget.maxBreakerWaitMs) return { kind: 'give-up', error: options.error.lastFailure ?? options.error };
  return { kind: 'wait', until, since };
}

/** Attempts left after this one failed, within both the job's attempts and the worker's budget. */
export function attemptsLeft(options: { jobAttempts: number | undefined; attemptsMade: number; budget: StageBudget }): number {
  const allowed = Math.min(options.jobAttempts ?? 1, options.budget.maxAttempts);
  return allowed - (options.attemptsMade + 1);
}
