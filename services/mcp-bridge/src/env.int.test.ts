/**
 * API_KEYS as the MCP bridge reads it at start-up: scopes, and a bad entry stopping the real
 * process with one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadEnv } from './env.js';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

test('the bridge reads each key\'s scopes and the wrong-key limit, 10 a minute by default, trusting no proxy unless TRUST_PROXY names it', () => {
  assert.deepEqual(loadEnv({ API_KEYS: 'agent:run' }).apiKeys, [{ key: 'agent', scopes: ['read', 'run'] }]);
  assert.deepEqual(loadEnv({}).failedKeys, { limit: 10, windowMs: 60_000, trustProxy: false });
  assert.deepEqual(loadEnv({ TRUST_PROXY: 'loopback' }).failedKeys.trustProxy, ['loopback']);
});

test('a bad API_KEYS entry stops the bridge at start-up with one line naming the entry, not the key', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, API_KEYS: 'secret-one,secret-two:read+wirte' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 2, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.equal(lines[0], 'mcp-bridge: invalid environment variable API_KEYS (value hidden): entry 2 (scopes "read+wirte"): unknown scope "wirte"; scopes are read, run, admin, joined by +');
  assert.ok(!run.stdout.includes('secret') && !run.stderr.includes('secret'));
});
