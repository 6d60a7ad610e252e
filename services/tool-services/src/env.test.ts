import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EnvError, parseEnv } from '@switchyard/config';
import { loadEnv, serviceFaults, ToolServicesEnv } from './env.js';

test('per-service knobs are read for their service alone, and unset ones stay unset', () => {
  const env = loadEnv({ FAULT_LATENCY_MS: '50', FAULT_SEARCH_LATENCY_MS: '300', FAULT_WRITING_STREAM_MS: '3000', FAULT_EDITING_TASK_MS: '2000' });
  assert.equal(env.FAULT_LATENCY_MS, 50);
  assert.deepEqual(serviceFaults(env), { search: { latencyMs: 300 }, outline: {}, writing: { streamMs: 3000 }, editing: { taskMs: 2000 } });
});

test('TASK_RETENTION_MS defaults to an hour and refuses anything but a whole number of milliseconds of at least a second', () => {
  assert.equal(loadEnv({}).TASK_RETENTION_MS, 3_600_000);
  assert.equal(loadEnv({ TASK_RETENTION_MS: '120000' }).TASK_RETENTION_MS, 120_000);
  for (const bad of ['soon', '500', '-1']) {
    assert.throws(() => parseEnv({ service: 'tool-services', schema: ToolServicesEnv, source: { TASK_RETENTION_MS: bad } }), (error: Error) => error instanceof EnvError && /TASK_RETENTION_MS/.test(error.message));
  }
});

test('the offline model listens on 8105 with its knobs off, and a failure status other than 429 or 500 is refused', () => {
  const env = loadEnv({});
  assert.equal(env.MODEL_SERVICE_PORT, 8105);
  assert.deepEqual([env.FAULT_MODEL_LATENCY_MS, env.FAULT_MODEL_TOKEN_DELAY_MS, env.FAULT_MODEL_FAILURE_RATE, env.FAULT_MODEL_FAILURE_STATUS, env.FAULT_MODEL_RETRY_AFTER_MS], [0, 0, 0, 429, 0]);
  assert.equal(loadEnv({ FAULT_MODEL_FAILURE_STATUS: '500' }).FAULT_MODEL_FAILURE_STATUS, 500);
  assert.throws(() => parseEnv({ service: 'tool-services', schema: ToolServicesEnv, source: { FAULT_MODEL_FAILURE_STATUS: '503' } }), (error: Error) => error instanceof EnvError && /FAULT_MODEL_FAILURE_STATUS/.test(error.message));
});
