/**
 * The bounds of an answer, checked before anything is read from Redis: an MCP call may carry up to
 * 32 MiB, and over stdio no body check bounds its nesting first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerApproval, AnswerError, answerSignal, MAX_ANSWER_BYTES, type AnswerDeps } from './answers.js';

// Nothing is reached past the bounds: deps that fail on use show it.
const untouched = new Proxy({}, { get: () => assert.fail('the stores were used') }) as AnswerDeps;
const runKey = { scopes: ['read', 'run'] };
const refusal = (code: string) => (error: unknown) => error instanceof AnswerError && error.code === code && error.refusal === 'invalid';

test('a signal payload past 1 MiB as JSON is refused as answer_too_large before the run is read', async () => {
  await assert.rejects(answerSignal(untouched, { runId: 'run_x', name: 'go', by: runKey }, { note: 'x'.repeat(MAX_ANSWER_BYTES) }), refusal('answer_too_large'));
});

test('a payload nested 100 000 deep is refused as answer_too_deep without recursion, at once', async () => {
  let deep: unknown = 0;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const started = performance.now();
  await assert.rejects(answerSignal(untouched, { runId: 'run_x', name: 'go', by: runKey }, deep), refusal('answer_too_deep'));
  assert.ok(performance.now() - started < 500, 'refused in well under a second');
});

test('edited arguments past the bounds are refused too', async () => {
  const waits = { get: async () => ({ kind: 'approval', key: 'c1' }), decision: async () => undefined };
  const deps = { ...Object.fromEntries(['pipelines', 'steps'].map((k) => [k, untouched])), store: { getStatus: async () => 'waiting' }, waits } as unknown as AnswerDeps;
  await assert.rejects(answerApproval(deps, { runId: `run_${'0'.repeat(32)}`, callId: 'c1', by: runKey }, () => ({ approve: true, arguments: { a: 'x'.repeat(MAX_ANSWER_BYTES) } })), refusal('answer_too_large'));
});

test('a key without the run scope is refused as insufficient_scope before anything is read, however it answers', async () => {
  const forbidden = (error: unknown) => error instanceof AnswerError && error.code === 'insufficient_scope' && error.refusal === 'forbidden';
  for (const scopes of [['read'], ['read', 'admin'], []]) {
    await assert.rejects(answerSignal(untouched, { runId: 'run_x', name: 'go', by: { scopes } }, {}), forbidden);
    await assert.rejects(answerApproval(untouched, { runId: 'run_x', callId: 'c1', by: { scopes } }, () => ({ approve: true })), forbidden);
  }
});
