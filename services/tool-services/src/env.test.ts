import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadEnv, serviceFaults } from './env.js';

test('per-service knobs are read for their service alone, and unset ones stay unset', () => {
  const env = loadEnv({ FAULT_LATENCY_MS: '50', FAULT_SEARCH_LATENCY_MS: '300', FAULT_WRITING_STREAM_MS: '3000', FAULT_EDITING_TASK_MS: '2000' });
  assert.equal(env.FAULT_LATENCY_MS, 50);
  assert.deepEqual(serviceFaults(env), { search: { latencyMs: 300 }, outline: {}, writing: { streamMs: 3000 }, editing: { taskMs: 2000 } });
});
