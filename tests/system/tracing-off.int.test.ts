/**
 * Tracing off, as every service starts without OTEL_EXPORTER_OTLP_ENDPOINT: the hooks stay out of
 * the way. (A file of its own: the tracing test installs a provider for its whole process.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { createLogger } from '@switchyard/logger';
import { inSpan, startTracing, tracingEnabled, type RunningTracing } from '@switchyard/telemetry';
import { loadEnv } from '../../services/orchestrator/src/env.js';
import { startProxiedTestStack, type RecordingProxy } from '../../services/orchestrator/src/testing/recording-proxy.js';
import type { TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { recordJobs } from '../../services/orchestrator/src/testing/job-recorder.js';

let tracing: RunningTracing;
let stack: TestStack;
let proxies: Record<string, RecordingProxy>;
let closeStack: () => Promise<void>;

before(async () => {
  // What main.ts does, with an environment that names no collector.
  tracing = await startTracing({ service: 'orchestrator', config: loadEnv({ OTEL_SERVICE_NAME: 'switchyard-api' }).telemetry });
  ({ stack, proxies, close: closeStack } = await startProxiedTestStack({ label: 'tracing-off' }));
});
after(async () => {
  await closeStack();
  await tracing.shutdown();
});

test('with no OTLP endpoint a story runs untraced: no span records, no tool request carries a traceparent, no job carries trace context', async () => {
  assert.equal(tracing.enabled, false);
  assert.equal(tracingEnabled(), false);
  const jobs = recordJobs(stack);
  const created = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a lighthouse keeper who collects lost letters' }) });
  const runId = created.body.run_id;
  const run = await stack.waitForRun(runId);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));

  const requests = Object.values(proxies).flatMap((p) => p.requests);
  assert.ok(requests.filter((r) => r.path.startsWith('/run/')).length >= 7, 'the tool calls went through the proxies');
  assert.deepEqual(requests.filter((r) => 'traceparent' in r.headers || 'tracestate' in r.headers).map((r) => r.path), []);

  jobs.stop();
  const job = jobs.taken(`${runId}.search`);
  assert.ok(job, 'a worker took the search job up');
  assert.equal(job.opts.telemetry, undefined);

  // Nothing could be exported: no span records, ours or any library's.
  assert.equal(trace.getTracer('any').startSpan('any').isRecording(), false);
  await inSpan('ours', {}, async (span) => assert.equal(span.isRecording(), false));
});

test('with no OTLP endpoint log lines carry no trace_id, inside a span or not', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ name: 'test', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  await inSpan('ours', {}, async () => logger.info({ run_id: 'run_a' }, 'inside'));
  logger.info({ run_id: 'run_b' }, 'outside');
  logger.info('outside, no fields');
  assert.deepEqual(lines.map((l) => [l.msg, l.run_id, 'trace_id' in l, 'span_id' in l]), [
    ['inside', 'run_a', false, false],
    ['outside', 'run_b', false, false],
    ['outside, no fields', undefined, false, false],
  ]);
});
