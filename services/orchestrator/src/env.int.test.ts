/**
 * API_KEYS and the session and wrong-key settings as the orchestrator reads them at start-up:
 * defaults, scopes, and a bad entry stopping the real process with one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { parseEnv } from '@switchyard/config';
import { loadEnv, OrchestratorEnv } from './env.js';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

test('sessions last 2 h idle and 24 h in all, and 10 wrong keys a minute are allowed, unless configured', () => {
  const defaults = loadEnv({});
  assert.deepEqual(defaults.sessions, { idleMs: 2 * 3600_000, maxMs: 24 * 3600_000 });
  assert.deepEqual(defaults.failedKeys, { limit: 10, windowMs: 60_000, trustProxy: false });
  const set = loadEnv({ UI_SESSION_IDLE_S: '600', UI_SESSION_MAX_S: '3600', AUTH_FAILURE_LIMIT: '5', AUTH_FAILURE_WINDOW_S: '300', TRUST_PROXY: '1', API_KEYS: 'a:read,b' });
  assert.deepEqual(set.sessions, { idleMs: 600_000, maxMs: 3_600_000 });
  assert.deepEqual(set.failedKeys, { limit: 5, windowMs: 300_000, trustProxy: 1 });
  assert.deepEqual(set.apiKeys, [{ key: 'a', scopes: ['read'] }, { key: 'b', scopes: ['read', 'run', 'admin'] }]);
  // loadEnv stops the process on a bad value; parseEnv, which it calls, throws instead.
  const parse = (source: Record<string, string>) => parseEnv({ service: 'orchestrator', schema: OrchestratorEnv, source });
  assert.throws(() => parse({ UI_SESSION_IDLE_S: '5' }), /UI_SESSION_IDLE_S/);
  assert.throws(() => parse({ AUTH_FAILURE_LIMIT: '0' }), /AUTH_FAILURE_LIMIT/);
});

test('a bad API_KEYS entry stops the orchestrator at start-up with one line naming the entry, not the key', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, API_KEYS: 'secret-one,secret-two:read+wirte' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 2, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.equal(lines[0], 'orchestrator: invalid environment variable API_KEYS (value hidden): entry 2 (scopes "read+wirte"): unknown scope "wirte"; scopes are read, run, admin, joined by +');
  assert.ok(!run.stdout.includes('secret') && !run.stderr.includes('secret'));
});

test('the orchestrator reads the agent models too: the offline model by default, and a bad MODELS stops start-up naming it', () => {
  assert.deepEqual([...loadEnv({}).models.keys()], ['default']);
  assert.equal(loadEnv({ LLM_BASE_URL: 'https://api.example.com/v1', LLM_MODEL: 'big-2' }).models.get('default')?.model, 'big-2');
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, MODELS: '{"fast":{"base_url":"https://x/v1","model":"m","api_key_env":"NOPE"}}' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stderr.trim(), 'orchestrator: invalid environment variable MODELS.fast.api_key_env: names NOPE, which is not set');
});
