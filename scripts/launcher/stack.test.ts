import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passedThrough } from './stack.js';

test('the services get the settings of theirs the launcher was given, and nothing else of its environment', () => {
  const passed = passedThrough({ TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50', COMPACT_AFTER_MS: '', HOME: '/root', AWS_SECRET_ACCESS_KEY: 'no' });
  assert.deepEqual(passed, { TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50' });
});
