/**
 * The SDK as a service starts it: spans reach an OTLP/HTTP collector (a loopback server here)
 * under the service's name, with the configured headers.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { context, propagation, trace } from '@opentelemetry/api';
import { telemetryConfig } from './env.js';
import { inSpan, traceHeaders } from './spans.js';
import { tracingEnabled } from './state.js';
import { startTracing } from './tracing.js';

interface Export {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string; traceId: string; spanId: string; parentSpanId?: string }[] }[] }[] };
}

async function startCollector(): Promise<{ url: string; exports: Export[]; close(): Promise<void> }> {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as Export['body'] });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

test('without an endpoint nothing starts: no span records and no trace context is injected', async () => {
  const tracing = await startTracing({ service: 'workers', config: telemetryConfig({}) });
  assert.equal(tracing.enabled, false);
  assert.equal(tracingEnabled(), false);
  await inSpan('work', {}, async (span) => {
    assert.equal(span.isRecording(), false);
    assert.deepEqual(traceHeaders(), {});
  });
  assert.equal(trace.getTracer('any').startSpan('any').isRecording(), false);
  assert.deepEqual(propagation.fields(), []);
  await tracing.shutdown();
});

test('with an endpoint, spans reach the collector over OTLP/HTTP under the service\'s name, with the configured headers', async () => {
  const collector = await startCollector();
  const tracing = await startTracing({ service: 'workers', config: telemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k1' }) });
  try {
    assert.equal(tracing.enabled, true);
    const sent = await inSpan('outer', {}, async () => {
      // A timer between the two: the context manager carries the span across it.
      await new Promise((r) => setTimeout(r, 5));
      return inSpan('inner', {}, async () => traceHeaders());
    });
    assert.match(sent.traceparent ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await tracing.shutdown(); // flushes the batch
    assert.equal(collector.exports.length, 1);
    const [exported] = collector.exports as [Export];
    assert.equal(exported.path, '/v1/traces');
    assert.equal(exported.headers['x-collector-key'], 'k1');
    const resource = exported.body.resourceSpans[0];
    assert.deepEqual(resource?.resource.attributes.find((a) => a.key === 'service.name')?.value, { stringValue: 'workers' });
    const spans = resource?.scopeSpans.flatMap((s) => s.spans) ?? [];
    const outer = spans.find((s) => s.name === 'outer');
    const inner = spans.find((s) => s.name === 'inner');
    assert.ok(outer && inner);
    assert.equal(inner.parentSpanId, outer.spanId);
    assert.equal(sent.traceparent, `00-${inner.traceId}-${inner.spanId}-01`);
  } finally {
    await collector.close();
    context.disable();
  }
});
