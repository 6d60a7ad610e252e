import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { retryDelayMs } from './backoff.js';
import { MODELS_LIMITS, ModelsConfigError, modelsEnvShape, parseModelsConfig } from './config.js';
import { ModelCallError, retryAfterOf } from './errors.js';
import { DEFAULT_MODEL_CLIENT_OPTIONS, modelClientOptionsFromEnv } from './model-client.js';

const FALLBACK = 'http://127.0.0.1:9999/v1';

function configError(run: () => unknown): ModelsConfigError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ModelsConfigError, `expected a ModelsConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the configuration to be refused');
}

test('with no LLM_BASE_URL the default model is the offline one at the fallback URL, with the tool services\' key', () => {
  const models = parseModelsConfig({ env: { TOOL_SERVICE_API_KEY: 'tool-key', LLM_BASE_URL: '' }, fallbackBaseUrl: FALLBACK });
  assert.deepEqual([...models.keys()], ['default']);
  assert.deepEqual(models.get('default'), { name: 'default', baseUrl: FALLBACK, apiKey: 'tool-key', model: 'offline' });
});

test('with neither LLM_BASE_URL nor a fallback given, the default model is at MODEL_SERVICE_URL, itself defaulting to port 8105', () => {
  assert.equal(parseModelsConfig({ env: {} }).get('default')?.baseUrl, 'http://127.0.0.1:8105/v1');
  assert.equal(parseModelsConfig({ env: { MODEL_SERVICE_URL: 'http://10.0.0.5:7000/v1' } }).get('default')?.baseUrl, 'http://10.0.0.5:7000/v1');
});

test('LLM_BASE_URL, LLM_API_KEY and LLM_MODEL make the default model, and LLM_MODEL is required with a base URL', () => {
  const models = parseModelsConfig({ env: { LLM_BASE_URL: 'https://api.example.com/v1', LLM_API_KEY: 'sk-1', LLM_MODEL: 'big-2' }, fallbackBaseUrl: FALLBACK });
  assert.deepEqual(models.get('default'), { name: 'default', baseUrl: 'https://api.example.com/v1', apiKey: 'sk-1', model: 'big-2' });
  const missing = configError(() => parseModelsConfig({ env: { LLM_BASE_URL: 'https://api.example.com/v1' }, fallbackBaseUrl: FALLBACK }));
  assert.equal(missing.variable, 'LLM_MODEL');
});

test('MODELS names more models, each key read from the variable api_key_env names', () => {
  const env = { MODELS: JSON.stringify({ fast: { base_url: 'http://127.0.0.1:1234/v1', api_key_env: 'FAST_KEY', model: 'small-1' }, local: { base_url: 'http://localhost:11434/v1', model: 'llama3' } }), FAST_KEY: 'fast-secret' };
  const models = parseModelsConfig({ env, fallbackBaseUrl: FALLBACK });
  assert.deepEqual([...models.keys()], ['default', 'fast', 'local']);
  assert.deepEqual(models.get('fast'), { name: 'fast', baseUrl: 'http://127.0.0.1:1234/v1', apiKey: 'fast-secret', model: 'small-1' });
  assert.equal(models.get('local')?.apiKey, undefined);
});

test('with no LLM_BASE_URL, a MODELS entry named default replaces the offline model', () => {
  const models = parseModelsConfig({ env: { MODELS: JSON.stringify({ default: { base_url: 'http://127.0.0.1:11434/v1', model: 'llama3' } }) }, fallbackBaseUrl: FALLBACK });
  assert.deepEqual(models.get('default'), { name: 'default', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined, model: 'llama3' });
});

test('MODELS errors name the variable, and the model or field at fault, never a key', () => {
  const parse = (MODELS: string, extra: Record<string, string> = {}) => configError(() => parseModelsConfig({ env: { MODELS, ...extra }, fallbackBaseUrl: FALLBACK }));
  const notJson = parse('{fast:');
  assert.equal(notJson.variable, 'MODELS');
  assert.match(notJson.message, /invalid environment variable MODELS: expected a JSON object/);
  assert.equal(parse(JSON.stringify({ fast: { base_url: 'ftp://x/v1', model: 'm' } })).variable, 'MODELS.fast.base_url');
  assert.equal(parse(JSON.stringify({ fast: { base_url: 'http://x/v1' } })).variable, 'MODELS.fast.model');
  assert.equal(parse(JSON.stringify({ fast: { base_url: 'http://x/v1', model: 'm', api_key: 'sk-inline' } })).variable, 'MODELS.fast');
  assert.match(parse(JSON.stringify({ 'Big Model': { base_url: 'http://x/v1', model: 'm' } })).message, /a model name is lower-case/);
  const unset = parse(JSON.stringify({ fast: { base_url: 'http://x/v1', model: 'm', api_key_env: 'FAST_KEY' } }));
  assert.equal(unset.variable, 'MODELS.fast.api_key_env');
  assert.match(unset.message, /names FAST_KEY, which is not set/);
  const withKey = configError(() => parseModelsConfig({ env: { LLM_BASE_URL: 'http://x/v1', LLM_MODEL: 'm', MODELS: JSON.stringify({ default: { base_url: 'http://y/v1', model: 'n' } }) } }));
  assert.match(withKey.message, /"default" is set by LLM_BASE_URL/);
  assert.equal(configError(() => parseModelsConfig({ env: { LLM_BASE_URL: 'javascript:alert(1)', LLM_MODEL: 'm' } })).variable, 'LLM_BASE_URL');
});

test('MODELS is bounded: its bytes and its count of models', () => {
  const many = Object.fromEntries(Array.from({ length: MODELS_LIMITS.models + 1 }, (_, i) => [`m${i}`, { base_url: 'http://x/v1', model: 'm' }]));
  assert.match(configError(() => parseModelsConfig({ env: { MODELS: JSON.stringify(many) } })).message, /at most 32 models/);
  const huge = JSON.stringify({ big: { base_url: 'http://x/v1', model: 'm'.repeat(20_000) } });
  assert.match(configError(() => parseModelsConfig({ env: { MODELS: huge } })).message, /MODELS is at most 16384 bytes/);
});

test('modelsEnvShape spreads into a service schema with its documented defaults, which become the client\'s options', () => {
  const env = z.object({ ...modelsEnvShape, OTHER: z.string().optional() }).parse({});
  assert.equal(env.MODEL_SERVICE_URL, 'http://127.0.0.1:8105/v1');
  const options = modelClientOptionsFromEnv(env);
  assert.deepEqual(options, { maxAttempts: 4, maxRetryAfterMs: 60_000, timeoutMs: 120_000, streamIdleMs: 30_000, bounds: { maxContentBytes: 256 * 1024, maxToolCalls: 32, maxArgumentBytes: 64 * 1024 } });
  assert.equal(options.maxAttempts, DEFAULT_MODEL_CLIENT_OPTIONS.maxAttempts);
  assert.equal(z.object(modelsEnvShape).safeParse({ LLM_MAX_TOOL_CALLS: '0' }).success, false);
});

test('Retry-After is read from retry-after-ms first, then seconds, then an HTTP date', () => {
  assert.equal(retryAfterOf({ headers: new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }) }), 250);
  assert.equal(retryAfterOf({ headers: new Headers({ 'retry-after': '2' }) }), 2000);
  const inAMinute = retryAfterOf({ headers: new Headers({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }) }) ?? 0;
  assert.ok(inAMinute > 55_000 && inAMinute <= 60_000);
  assert.equal(retryAfterOf({ headers: new Headers({ 'retry-after': 'soon' }) }), undefined);
  assert.equal(retryAfterOf(new Error('no headers')), undefined);
});

test('backoff doubles from its base with jitter, up to its cap; a Retry-After replaces it', () => {
  const options = { baseBackoffMs: 100, maxBackoffMs: 1000, maxRetryAfterMs: 5000 };
  const failure = new ModelCallError({ code: 'model_unavailable', message: 'x' });
  assert.deepEqual([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(failure, attempt, options, () => 1)), [100, 200, 400, 800, 1000]);
  assert.deepEqual([1, 2, 3].map((attempt) => retryDelayMs(failure, attempt, options, () => 0)), [50, 100, 200]);
  assert.equal(retryDelayMs(new ModelCallError({ code: 'model_rate_limited', message: 'x', retryAfterMs: 1500 }), 1, options), 1500);
});

test('a model may declare requests and tokens per minute, in MODELS or for default in LLM_*_PER_MINUTE; a model declaring none has no limits', () => {
  const MODELS = JSON.stringify({ fast: { base_url: 'https://api.example.com/v1', model: 'small-1', requests_per_minute: 500, tokens_per_minute: 200000 }, slow: { base_url: 'https://api.example.com/v1', model: 'big-1' } });
  const models = parseModelsConfig({ env: { MODELS, LLM_REQUESTS_PER_MINUTE: '120' }, fallbackBaseUrl: FALLBACK });
  assert.deepEqual(models.get('fast')?.limits, { requestsPerMinute: 500, tokensPerMinute: 200000 });
  assert.equal(models.get('slow')?.limits, undefined);
  assert.deepEqual(models.get('default')?.limits, { requestsPerMinute: 120 });
});

test('a rate limit that is not a positive whole number within its bound is refused, naming where it is', () => {
  const entry = (limit: unknown) => JSON.stringify({ fast: { base_url: 'https://api.example.com/v1', model: 'small-1', requests_per_minute: limit } });
  assert.match(configError(() => parseModelsConfig({ env: { MODELS: entry(0) } })).variable, /MODELS/);
  assert.match(configError(() => parseModelsConfig({ env: { MODELS: entry(1.5) } })).variable, /MODELS/);
  assert.match(configError(() => parseModelsConfig({ env: { MODELS: entry(MODELS_LIMITS.requestsPerMinute + 1) } })).variable, /MODELS/);
  assert.equal(configError(() => parseModelsConfig({ env: { LLM_TOKENS_PER_MINUTE: '-5' } })).variable, 'LLM_TOKENS_PER_MINUTE');
});

test('a MODELS entry may speak Anthropic\'s Messages API (provider: anthropic) and carry its own most output tokens; another provider is refused', () => {
  const MODELS = JSON.stringify({ claude: { provider: 'anthropic', base_url: 'https://api.anthropic.com', api_key_env: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-5', max_output_tokens: 8192 } });
  const models = parseModelsConfig({ env: { MODELS, ANTHROPIC_API_KEY: 'sk-ant' } });
  assert.deepEqual(models.get('claude'), { name: 'claude', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant', model: 'claude-sonnet-4-5', provider: 'anthropic', maxOutputTokens: 8192 });
  assert.throws(() => parseModelsConfig({ env: { MODELS: JSON.stringify({ x: { provider: 'gemini', base_url: 'https://x.example', model: 'm' } }) } }), /MODELS\.x\.provider/);
});
