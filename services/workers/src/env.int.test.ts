import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { loadEnv } from './env.js';
import { CONTENT_FLUSH_MS } from './engine/content-coalescer.js';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

/** A worker's start under tsx: seconds alone, tens of seconds on a machine loaded many times over. */
const START_TIMEOUT_MS = 120_000;

test('tool-service modes, URLs and timeouts default as documented', () => {
  const { toolServices } = loadEnv({});
  assert.deepEqual(
    Object.values(toolServices.services).map((s) => [s.key, s.mode, s.timeoutMs]),
    [['search', 'sync', 15_000], ['outline', 'sync', 30_000], ['writing', 'stream', 60_000], ['editing', 'async', 90_000]],
  );
  assert.equal(toolServices.services.search.url, 'http://127.0.0.1:8101');
});

test('each service URL and mode can be overridden', () => {
  const { toolServices } = loadEnv({ EDITING_SERVICE_URL: 'https://edit.example.com/v1/', EDITING_SERVICE_MODE: 'stream', TOOL_SERVICE_API_KEY: 'k' });
  assert.equal(toolServices.services.editing.url, 'https://edit.example.com/v1');
  assert.equal(toolServices.services.editing.mode, 'stream');
  assert.equal(toolServices.apiKey, 'k');
});

for (const [name, value] of [['SEARCH_SERVICE_MODE', 'fast'], ['WRITING_SERVICE_URL', 'not a url'], ['OUTLINE_SERVICE_TIMEOUT_MS', '-5']] as const) {
  test(`a bad ${name} stops start-up with one line naming it`, () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, [name]: value }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
    assert.equal(run.status, 2);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', new RegExp(`^workers: invalid environment variable ${name}`));
  });
}

test('each service\'s step queue takes its own concurrency and rate limit, over the shared default', () => {
  const config = loadEnv({ WORKER_CONCURRENCY: '4', WRITING_QUEUE_CONCURRENCY: '16', SEARCH_QUEUE_RATE: '20/1000' });
  assert.deepEqual(config.queues['tool-writing'], { concurrency: 16, rate: undefined });
  assert.deepEqual(config.queues['tool-search'], { concurrency: 4, rate: { max: 20, duration: 1000 } });
  assert.equal(config.queues['tool-editing']?.concurrency, 4);
  assert.equal(config.defaultConcurrency, 4);
  assert.equal(config.prefix, '{sy}');
});

test('the agent queue is sized as an I/O queue, WORKER_CONCURRENCY unless AGENT_QUEUE_CONCURRENCY says otherwise', () => {
  assert.equal(loadEnv({}).queues.agent?.concurrency, 200);
  assert.equal(loadEnv({ WORKER_CONCURRENCY: '50' }).queues.agent?.concurrency, 50);
  assert.equal(loadEnv({ AGENT_QUEUE_CONCURRENCY: '500' }).queues.agent?.concurrency, 500);
});

test('a tool service declaring requests_per_minute in TOOL_SERVICES has its queue limited to that, a minute at a time', () => {
  const config = loadEnv({ WORKER_CONCURRENCY: '4', TOOL_SERVICES: JSON.stringify({ reviewer: { url: 'http://127.0.0.1:9001', requests_per_minute: 90 }, plain: 'http://127.0.0.1:9002' }) });
  assert.deepEqual(config.queues['tool-reviewer'], { concurrency: 4, rate: { max: 90, duration: 60_000 } });
  assert.equal(config.queues['tool-plain'], undefined);
  assert.equal(config.toolServices.extra.reviewer?.requestsPerMinute, 90);
});

test('content is joined per CONTENT_FLUSH_MS, by default the coalescer\'s interval, and a negative one is refused', () => {
  assert.equal(loadEnv({}).contentFlushMs, CONTENT_FLUSH_MS);
  assert.equal(loadEnv({ CONTENT_FLUSH_MS: '0' }).contentFlushMs, 0);
  assert.equal(loadEnv({ CONTENT_FLUSH_MS: '500' }).contentFlushMs, 500);
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, CONTENT_FLUSH_MS: '-1' }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
  assert.equal(run.status, 2);
  assert.match(run.stderr.trim(), /^workers: invalid environment variable CONTENT_FLUSH_MS/);
});

test('a queue rate that is not N/MS stops start-up with one line naming it', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, EDITING_QUEUE_RATE: 'fast' }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
  assert.equal(run.status, 2);
  assert.match(run.stderr.trim(), /^workers: invalid environment variable EDITING_QUEUE_RATE \("fast"\): expected N\/MS/);
});

test('METRICS_PORT is off unless set, binds loopback by default, and a bad one stops start-up with one line naming it', () => {
  assert.equal(loadEnv({}).metrics, undefined);
  assert.deepEqual(loadEnv({ METRICS_PORT: '9464' }).metrics, { port: 9464, host: '127.0.0.1' });
  assert.deepEqual(loadEnv({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' }).metrics, { port: 0, host: '0.0.0.0' });
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, METRICS_PORT: '70000' }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
  assert.equal(run.status, 2);
  assert.match(run.stderr.trim(), /^workers: invalid environment variable METRICS_PORT/);
});

test('a METRICS_PORT already in use stops start-up before any job is taken, with a line naming it', async () => {
  const taken = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => taken.once('listening', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    const env = { PATH: process.env.PATH, REDIS_URL: process.env.REDIS_URL, QUEUE_PREFIX: `metrics-port-${process.pid}`, METRICS_PORT: String(port), LOG_LEVEL: 'fatal' };
    const run = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.on('close', (status) => resolve({ status, stdout }));
    });
    assert.equal(run.status, 2);
    assert.match(run.stdout, new RegExp(`cannot serve metrics on 127\\.0\\.0\\.1:${port}`));
    assert.match(run.stdout, /METRICS_PORT/);
  } finally {
    taken.close();
  }
});

test('agent models default to the offline model at MODEL_SERVICE_URL, with the client\'s documented limits', () => {
  const config = loadEnv({ MODEL_SERVICE_URL: 'http://127.0.0.1:9105/v1', TOOL_SERVICE_API_KEY: 'k' });
  assert.deepEqual([...config.models.values()], [{ name: 'default', baseUrl: 'http://127.0.0.1:9105/v1', apiKey: 'k', model: 'offline' }]);
  assert.deepEqual(config.modelClient, { maxAttempts: 4, maxRetryAfterMs: 60_000, timeoutMs: 120_000, streamIdleMs: 30_000, bounds: { maxContentBytes: 256 * 1024, maxToolCalls: 32, maxArgumentBytes: 64 * 1024 } });
  const named = loadEnv({ MODELS: '{"fast":{"base_url":"https://api.example.com/v1","api_key_env":"FAST_KEY","model":"small-1"}}', FAST_KEY: 'sk-fast' });
  assert.equal(named.models.get('fast')?.apiKey, 'sk-fast');
});

for (const [what, env, expected] of [
  ['a MODELS key variable that is not set', { MODELS: '{"fast":{"base_url":"https://api.example.com/v1","model":"small-1","api_key_env":"FAST_KEY"}}' }, /^workers: invalid environment variable MODELS\.fast\.api_key_env: names FAST_KEY, which is not set$/],
  ['a MODELS base URL that is not http(s)', { MODELS: '{"fast":{"base_url":"file:///etc/passwd","model":"small-1"}}' }, /^workers: invalid environment variable MODELS\.fast\.base_url/],
  ['LLM_BASE_URL without LLM_MODEL', { LLM_BASE_URL: 'https://api.example.com/v1' }, /^workers: invalid environment variable LLM_MODEL: required when LLM_BASE_URL is set/],
] as const) {
  test(`${what} stops start-up with one line naming it`, () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
    assert.equal(run.status, 2, run.stderr);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', expected);
  });
}

test('webhooks are off by default, and WEBHOOK_ALLOW with WEBHOOK_SECRET gives the list, the key and the per-attempt bounds', () => {
  assert.equal(loadEnv({}).webhooks, undefined);
  const { webhooks } = loadEnv({ WEBHOOK_ALLOW: 'hooks.example.com, 127.0.0.1:9000', WEBHOOK_SECRET: 'a-secret-of-sixteen+', WEBHOOK_TIMEOUT_MS: '2500' });
  assert.deepEqual(webhooks, { allow: { entries: [{ host: 'hooks.example.com', port: null }, { host: '127.0.0.1', port: '9000' }] }, secret: 'a-secret-of-sixteen+', timeoutMs: 2500, responseMaxBytes: 4096 });
});

for (const [env, named] of [[{ WEBHOOK_ALLOW: 'hooks.example.com' }, 'WEBHOOK_SECRET'], [{ WEBHOOK_ALLOW: 'a:b:c', WEBHOOK_SECRET: 'a-secret-of-sixteen+' }, 'WEBHOOK_ALLOW']] as const) {
  test(`${JSON.stringify(env)} stops start-up with one line naming ${named}`, () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: START_TIMEOUT_MS });
    assert.equal(run.status, 2);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', new RegExp(`^workers: invalid environment variable ${named}`));
  });
}
