import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { parseEnv } from '@switchyard/config';
import { telemetryConfig, telemetryEnvShape } from './env.js';

const parse = (source: Record<string, string>) => telemetryConfig(parseEnv({ service: 's', schema: z.object(telemetryEnvShape), source }));

test('tracing is off unless an OTLP endpoint is set', () => {
  assert.deepEqual(parse({}), { tracesUrl: undefined, headers: {}, serviceName: undefined });
  assert.equal(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracesUrl, undefined);
});

test('spans go to the endpoint\'s /v1/traces, or to the traces endpoint when one is given', () => {
  assert.equal(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracesUrl, 'http://127.0.0.1:4318/v1/traces');
  assert.equal(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otlp/' }).tracesUrl, 'http://collector:4318/otlp/v1/traces');
  assert.equal(parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces' }).tracesUrl, 'http://b:4318/traces');
});

test('export headers and the service name are read as the OTLP specification writes them', () => {
  const config = parse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=s3cr%3Dt, x-tenant = blue,broken', OTEL_SERVICE_NAME: 'switchyard-api' });
  assert.deepEqual(config.headers, { 'api-key': 's3cr=t', 'x-tenant': 'blue' });
  assert.equal(config.serviceName, 'switchyard-api');
});

test('an endpoint that is not a URL stops start-up naming the variable', () => {
  assert.throws(() => parse({ OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT/);
});
