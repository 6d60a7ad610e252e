import assert from 'node:assert/strict';
import { test } from 'node:test';
import { passedThrough, SERVICE_VARIABLES } from './service-env.js';
import { mcpPort } from './stack.js';

test('the services get the settings of theirs the launcher was given, and nothing else of its environment', () => {
  const passed = passedThrough({ TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50', COMPACT_AFTER_MS: '', HOME: '/root', AWS_SECRET_ACCESS_KEY: 'no' });
  assert.deepEqual(passed, { TASK_RETENTION_MS: '120000', FAULT_WRITING_STREAM_MS: '3000', WORKER_CONCURRENCY: '50' });
});

test("every variable of the services' env schemas reaches them, except what the launcher sets for each child", () => {
  const given = Object.fromEntries([...SERVICE_VARIABLES].map((name) => [name, 'x']));
  const passed = passedThrough(given);
  for (const name of ['TOOL_SERVICES', 'EXPRESSION_TIMEOUT_MS', 'EVENT_LOOP_STALL_MS', 'SEARCH_QUEUE_CONCURRENCY', 'ALLOWED_ORIGINS', 'CKB_MCP_URL', 'LLM_BASE_URL', 'FAULT_EDITING_TASK_MS', 'HOST']) assert.equal(passed[name], 'x', name);
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'PORT', 'API_KEYS', 'METRICS_PORT', 'SEARCH_SERVICE_URL', 'WRITING_SERVICE_PORT', 'TOOL_SERVICE_API_KEYS']) assert.equal(passed[name], undefined, name);
});

test('the key variables MODELS names reach the services with it, and other secrets still do not', () => {
  const MODELS = JSON.stringify({ fast: { base_url: 'https://api.example.com/v1', api_key_env: 'FAST_MODEL_KEY', model: 'small-1' } });
  const passed = passedThrough({ MODELS, FAST_MODEL_KEY: 'sk-fast', OTHER_KEY: 'no', LLM_API_KEY: 'sk-default' });
  assert.deepEqual(passed, { MODELS, FAST_MODEL_KEY: 'sk-fast', LLM_API_KEY: 'sk-default' });
  assert.deepEqual(passedThrough({ MODELS: '{broken', FAST_MODEL_KEY: 'sk-fast' }), { MODELS: '{broken' });
});

test('MCP_PORT is a port or unset, and anything else stops the launch naming it', () => {
  assert.equal(mcpPort(undefined), undefined);
  assert.equal(mcpPort(''), undefined);
  assert.equal(mcpPort('8091'), 8091);
  for (const bad of ['abc', '0', '70000', '80.5']) assert.throws(() => mcpPort(bad), /^Error: MCP_PORT must be a port/);
});
