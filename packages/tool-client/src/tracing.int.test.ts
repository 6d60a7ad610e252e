/**
 * A tool call's span, with an in-memory exporter: one client span per call however many attempts
 * it takes, each request of the call made under it (the reference service's span is its child).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SpanStatusCode } from '@opentelemetry/api';
import { createLogger } from '@switchyard/logger';
import { inSpan, SpanKind } from '@switchyard/telemetry';
import { parentSpanId, startTestTracing, type ReadableSpan, type TestTracing } from '@switchyard/telemetry/testing';
import { createOfflineAuthor, startToolServices, type ToolServicesStack } from '@switchyard/tool-services';
import { ToolServiceClient } from './client.js';
import { ToolInputError } from './errors.js';

let tracing: TestTracing;
let stack: ToolServicesStack;

before(async () => {
  tracing = startTestTracing();
  stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'test', level: 'silent' }) });
});
after(async () => {
  await stack.close();
  await tracing.close();
});

const client = () => new ToolServiceClient({ service: 'search', baseUrl: stack.services.search.url, retry: { retries: 3, minDelayMs: 10, maxDelayMs: 20 } });
const callSpans = () => tracing.spans().filter((s) => s.kind === SpanKind.CLIENT);

/** The service's spans under `call`, once the service has ended them. */
async function servedUnder(call: ReadableSpan, count: number): Promise<ReadableSpan[]> {
  const under = () => tracing.spans().filter((s) => s.kind === SpanKind.SERVER && parentSpanId(s) === call.spanContext().spanId);
  const deadline = Date.now() + 5000;
  while (under().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return under();
}

test('a call retried after two 503s is one client span, its attempt 3, with each of its requests served under it', async (t) => {
  tracing.reset();
  stack.services.search.faults.failNext = 2;
  t.after(() => (stack.services.search.faults.failNext = 0));
  await client().call({ tool: 'search_relevant_information', args: { topic: 'tide clocks', depth: 1 } });

  const [call, ...more] = callSpans();
  assert.ok(call);
  assert.equal(more.length, 0, 'one span for the call');
  assert.equal(call.name, 'search/search_relevant_information');
  assert.deepEqual(call.attributes, { 'switchyard.tool.service': 'search', 'switchyard.tool.name': 'search_relevant_information', 'switchyard.tool.mode': 'sync', 'switchyard.tool.attempt': 3 });
  assert.equal(call.status.code, SpanStatusCode.UNSET);
  const runs = (await servedUnder(call, 4)).filter((s) => s.attributes['http.route'] === '/run/:tool');
  assert.deepEqual(runs.map((s) => s.attributes['http.response.status_code']).sort(), [200, 503, 503]);
  assert.deepEqual(runs.map((s) => s.status.code).sort(), [SpanStatusCode.UNSET, SpanStatusCode.ERROR, SpanStatusCode.ERROR]);
});

test('a call refused before anything is sent ends its span failed, with the error', async () => {
  tracing.reset();
  await assert.rejects(client().call({ tool: 'search_relevant_information', args: { depth: 1 } }), ToolInputError);
  const [call] = callSpans();
  assert.equal(call?.status.code, SpanStatusCode.ERROR);
  assert.match(call?.status.message ?? '', /topic/);
  assert.equal(call?.events.find((e) => e.name === 'exception')?.attributes?.['exception.type'], 'invalid_parameters', 'the exception is recorded with its code');
  assert.ok(!('switchyard.tool.attempt' in (call?.attributes ?? {})), 'no attempt was made');
});

test('a health check outside any trace makes no span at the service; one inside a call\'s trace does', async () => {
  tracing.reset();
  assert.equal((await client().health()).healthy, true);
  await inSpan('caller', {}, () => client().health());
  const caller = tracing.spans().find((s) => s.name === 'caller');
  assert.ok(caller);
  // health() asks /health, then /tools with the key: once both are served under the caller, the
  // check made outside any trace has long been answered.
  const health = (await servedUnder(caller, 2)).filter((s) => s.attributes['url.path'] === '/health');
  assert.equal(health.length, 1);
  assert.deepEqual(tracing.spans().filter((s) => s.kind === SpanKind.SERVER && s.attributes['url.path'] === '/health'), health);
});
