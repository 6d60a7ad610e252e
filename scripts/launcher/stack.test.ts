import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcpPort, passedThrough } from './stack.js';

test('the services get the settings of theirs the launcher was given, and nothing else of its environment', () => {
  const passed = passedThrough({ TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50', COMPACT_AFTER_MS: '', HOME: '/root', AWS_SECRET_ACCESS_KEY: 'no' });
  assert.deepEqual(passed, { TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50' });
});

test('MCP_PORT is a port or unset, and anything else stops the launch naming it', () => {
  assert.equal(mcpPort(undefined), undefined);
  assert.equal(mcpPort(''), undefined);
  assert.equal(mcpPort('8091'), 8091);
  for (const bad of ['abc', '0', '70000', '80.5']) assert.throws(() => mcpPort(bad), /^Error: MCP_PORT must be a port/);
});
