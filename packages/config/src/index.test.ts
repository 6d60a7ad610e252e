import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { EnvError, booleanFlag, commaList, httpServiceConfig, httpServiceEnvShape, parseEnv, pipelineConfig, pipelineEnvShape } from './index.js';

const schema = z.object({ PORT: z.coerce.number().int().min(1).max(65535).default(8080), MODE: z.enum(['sync', 'async']).default('sync'), KEYS: commaList.default([]), DEBUG: booleanFlag.default(false) });

test('defaults apply and values are converted', () => {
  assert.deepEqual(parseEnv({ service: 's', schema, source: { PORT: '81', KEYS: 'a, b,,c', DEBUG: 'yes' } }), { PORT: 81, MODE: 'sync', KEYS: ['a', 'b', 'c'], DEBUG: true });
});

test('a bad value gives one line that names the variable and its value', () => {
  assert.throws(
    () => parseEnv({ service: 'workers', schema, source: { MODE: 'streaming' } }),
    (e: unknown) => e instanceof EnvError && /^workers: invalid environment variable MODE \("streaming"\)/.test(e.message) && !e.message.includes('\n'),
  );
});

test('an empty variable counts as unset', () => {
  assert.equal(parseEnv({ service: 's', schema, source: { PORT: '' } }).PORT, 8080);
});

test('the pipeline and HTTP service variables parse alike in every service, with their defaults', () => {
  const schema = z.object({ ...httpServiceEnvShape(8090), ...pipelineEnvShape });
  const env = parseEnv({ service: 's', schema, source: { API_KEYS: 'k1,k2', QUEUE_PREFIX: '{sy}' } });
  assert.deepEqual(httpServiceConfig(env), { port: 8090, host: '127.0.0.1', apiKeys: ['k1', 'k2'] });
  assert.deepEqual(pipelineConfig(env), { redisUrl: undefined, prefix: '{sy}', retentionSeconds: 7 * 24 * 3600 });
  assert.equal(httpServiceConfig(parseEnv({ service: 's', schema, source: { API_KEYS: ' , ' } })).apiKeys, undefined, 'an empty key list means the local key');
  assert.throws(() => parseEnv({ service: 'orchestrator', schema, source: { QUEUE_PREFIX: 'a b' } }), /QUEUE_PREFIX/);
  assert.throws(() => parseEnv({ service: 'orchestrator', schema, source: { RUN_RETENTION_S: String(400 * 24 * 3600) } }), /RUN_RETENTION_S/);
});
