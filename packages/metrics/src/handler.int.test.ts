import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMetricsRegistry, metricLabels, runMetrics, startMetricsServer, type MetricsServer } from './index.js';
import { parseExposition, sampleSum } from './testing/index.js';

let server: MetricsServer;
let healthy = true;
before(async () => {
  const registry = createMetricsRegistry();
  runMetrics(registry, metricLabels(registry)).created({ pipeline: 'story', count: 1 });
  server = await startMetricsServer({ registry, port: 0, health: async () => ({ healthy, body: { status: healthy ? 'healthy' : 'degraded' } }) });
});
after(() => server.close());

test('the metrics server answers GET /metrics in the Prometheus text format', async () => {
  const res = await fetch(`${server.url}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  assert.equal(sampleSum(parseExposition(await res.text()), 'switchyard_runs_started_total', { pipeline: 'story' }), 1);
});

test('its /health answers 200 while the check holds and 503 when it does not', async () => {
  assert.equal((await fetch(`${server.url}/health`)).status, 200);
  healthy = false;
  const res = await fetch(`${server.url}/health`);
  assert.equal(res.status, 503);
  assert.deepEqual(await res.json(), { status: 'degraded' });
  healthy = true;
});

test('anything else is 404, and a method other than GET is 405, in the error shape', async () => {
  const missing = await fetch(`${server.url}/v1/runs`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'not_found');
  const posted = await fetch(`${server.url}/metrics`, { method: 'POST' });
  assert.equal(posted.status, 405);
});
