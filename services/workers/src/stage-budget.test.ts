import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitOpenError, ToolUnavailableError } from '@switchyard/tool-client';
import { attemptsLeft, circuitOpenCause, decideBreakerWait } from './stage-budget.js';

const budget = { maxAttempts: 3, maxBreakerWaitMs: 10_000 };
const lastFailure = new ToolUnavailableError({ service: 'search', status: 503, code: 'service_unavailable', message: 'down' });
const open = (retryAfterMs: number) => new CircuitOpenError({ service: 'search', code: 'circuit_open', message: 'open', retryAfterMs, lastFailure });

test('a stage meeting an open breaker waits until the breaker may probe, counting from its first wait', () => {
  const decision = decideBreakerWait({ error: open(2000), since: undefined, budget, now: 1_000, random: () => 0.5 });
  assert.deepEqual(decision, { kind: 'wait', until: 3_500, since: 1_000 });
  const later = decideBreakerWait({ error: open(2000), since: 1_000, budget, now: 5_000, random: () => 0 });
  assert.deepEqual(later, { kind: 'wait', until: 7_000, since: 1_000 });
});

test('once the wait budget is spent, the stage gives up with the service\'s last real error', () => {
  const decision = decideBreakerWait({ error: open(2000), since: 0, budget, now: 9_000, random: () => 0 });
  assert.equal(decision.kind, 'give-up');
  assert.equal(decision.kind === 'give-up' && decision.error, lastFailure);
});

test('attempts left are bounded by both the job\'s attempts and the worker\'s budget', () => {
  assert.equal(attemptsLeft({ jobAttempts: 10, attemptsMade: 0, budget }), 2);
  assert.equal(attemptsLeft({ jobAttempts: 10, attemptsMade: 2, budget }), 0);
  assert.equal(attemptsLeft({ jobAttempts: 2, attemptsMade: 0, budget }), 1);
});

test('an open breaker is found behind errors that wrap it', () => {
  const wrapped = new Error('stage failed', { cause: new Error('graph failed', { cause: open(1) }) });
  assert.ok(circuitOpenCause(wrapped) instanceof CircuitOpenError);
  assert.equal(circuitOpenCause(lastFailure), undefined);
});
