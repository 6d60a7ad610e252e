import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { EnvError, booleanFlag, commaList, failedKeyConfig, failedKeyEnvShape, httpServiceConfig, httpServiceEnvShape, metricSeriesConfig, metricSeriesEnvShape, parseEnv, pipelineConfig, pipelineEnvShape, taggedPrefix } from './index.js';

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
  const all = ['read', 'run', 'admin'];
  assert.deepEqual(httpServiceConfig(env), { port: 8090, host: '127.0.0.1', apiKeys: [{ key: 'k1', scopes: all }, { key: 'k2', scopes: all }] });
  assert.deepEqual(pipelineConfig(env), { redisUrl: undefined, prefix: '{sy}', retentionSeconds: 7 * 24 * 3600 });
  assert.equal(httpServiceConfig(parseEnv({ service: 's', schema, source: { API_KEYS: ' , ' } })).apiKeys, undefined, 'an empty key list means the local key');
  assert.throws(() => parseEnv({ service: 'orchestrator', schema, source: { QUEUE_PREFIX: 'a b' } }), /QUEUE_PREFIX/);
  assert.throws(() => parseEnv({ service: 'orchestrator', schema, source: { RUN_RETENTION_S: String(400 * 24 * 3600) } }), /RUN_RETENTION_S/);
});

test('a Redis Cluster is named by its seed nodes, and the keyspace name is hash-tagged for BullMQ on a cluster', () => {
  const schema = z.object({ ...pipelineEnvShape });
  const env = parseEnv({ service: 's', schema, source: { REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7000', QUEUE_PREFIX: 'sy' } });
  assert.deepEqual(pipelineConfig(env), { redisUrl: 'redis-cluster://10.0.0.1:7000,10.0.0.2:7000', prefix: '{sy}', retentionSeconds: 7 * 24 * 3600 });
  assert.equal(taggedPrefix('{sy}'), '{sy}');
  assert.equal(taggedPrefix('t:a:1'), '{t:a:1}');
  assert.throws(() => parseEnv({ service: 's', schema, source: { REDIS_CLUSTER_NODES: '10.0.0.1' } }), /REDIS_CLUSTER_NODES.*host:port/);
  assert.throws(() => parseEnv({ service: 's', schema, source: { QUEUE_PREFIX: 'a{b}' } }), /QUEUE_PREFIX/);
  const both = parseEnv({ service: 's', schema, source: { REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_URL: 'redis://x:6379' } });
  assert.throws(() => pipelineConfig(both), /REDIS_URL and REDIS_CLUSTER_NODES are both set/);
});

test('TRUST_PROXY: unset trusts no proxy; hops or proxy addresses, subnets and named ranges are kept; anything else, `true` included, is refused', () => {
  const schema = z.object(failedKeyEnvShape);
  const trust = (value?: string) => failedKeyConfig(parseEnv({ service: 's', schema, source: { TRUST_PROXY: value } })).trustProxy;
  assert.equal(trust(), false);
  assert.equal(trust('false'), false);
  assert.equal(trust('1'), 1);
  assert.deepEqual(trust('loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1'), ['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.1']);
  for (const bad of ['true', '10.0.0.0/33', 'proxy.example', '1.2.3.4/8/8']) assert.throws(() => trust(bad), /TRUST_PROXY/, bad);
  assert.deepEqual(failedKeyConfig(parseEnv({ service: 's', schema, source: {} })), { limit: 10, windowMs: 60_000, trustProxy: false });
});

test('the budget of fair-share keys in metrics is METRICS_MAX_FAIR_KEYS, 20 unless set', () => {
  const parse = (source: Record<string, string>) => metricSeriesConfig(parseEnv({ service: 's', schema: z.object(metricSeriesEnvShape), source }));
  assert.equal(parse({}).maxFairKeys, 20);
  assert.equal(parse({ METRICS_MAX_FAIR_KEYS: '3' }).maxFairKeys, 3);
  assert.throws(() => parse({ METRICS_MAX_FAIR_KEYS: '-1' }), EnvError);
});
