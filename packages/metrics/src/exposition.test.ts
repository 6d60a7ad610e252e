import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolServiceClient, ToolUnavailableError } from '@switchyard/tool-client';
import { Counter, createMetricsRegistry, Gauge, Histogram, metricLabels, runMetrics, toolCallMetrics } from './index.js';
import { labelValues, parseExposition, sampleSum } from './testing/index.js';

test('what prom-client writes, of every kind, reads back with its labels and values', async () => {
  const registry = createMetricsRegistry();
  new Counter({ name: 'switchyard_things_total', help: 'things', labelNames: ['kind'], registers: [registry] }).inc({ kind: 'a "quoted"\\ back\nslash' }, 3);
  new Gauge({ name: 'switchyard_level', help: 'level', registers: [registry] }).set(-2.5);
  const histogram = new Histogram({ name: 'switchyard_wait_seconds', help: 'waits', labelNames: ['stage'], buckets: [0.1, 1], registers: [registry] });
  histogram.observe({ stage: 'one' }, 0.05);
  histogram.observe({ stage: 'one' }, 0.5);
  histogram.observe({ stage: 'two' }, 5);
  const families = parseExposition(await registry.metrics());
  assert.equal(sampleSum(families, 'switchyard_things_total', { kind: 'a "quoted"\\ back\nslash' }), 3);
  assert.equal(sampleSum(families, 'switchyard_level'), -2.5);
  assert.equal(sampleSum(families, 'switchyard_wait_seconds_count', { stage: 'one' }), 2);
  assert.equal(sampleSum(families, 'switchyard_wait_seconds_bucket', { stage: 'one', le: '0.1' }), 1);
  assert.equal(sampleSum(families, 'switchyard_wait_seconds_bucket', { stage: 'two', le: '+Inf' }), 1);
  assert.equal(families.get('switchyard_wait_seconds')?.type, 'histogram');
  assert.ok(families.has('process_cpu_seconds_total') && families.has('nodejs_eventloop_lag_seconds'), 'the default process metrics are there');
});

test('two registries in one process keep their metrics apart, and a registry may go without the process metrics', async () => {
  const one = createMetricsRegistry({ defaultMetrics: false });
  const two = createMetricsRegistry({ defaultMetrics: false });
  runMetrics(one, metricLabels(one)).created({ pipeline: 'story', count: 2 });
  runMetrics(two, metricLabels(two)).ended({ pipeline: 'story', status: 'failed' });
  const first = parseExposition(await one.metrics());
  const second = parseExposition(await two.metrics());
  assert.equal(sampleSum(first, 'switchyard_runs_started_total', { pipeline: 'story' }), 2);
  assert.equal(sampleSum(second, 'switchyard_runs_started_total'), 0);
  assert.equal(sampleSum(second, 'switchyard_runs_ended_total', { pipeline: 'story', status: 'failed' }), 1);
  assert.ok(!first.has('process_cpu_seconds_total'));
});

for (const [why, text] of [
  ['a sample before any TYPE', 'foo 1\n'],
  ['a sample of another family than the TYPE before it', '# TYPE foo counter\nbar 1\n'],
  ['a value that is no number', '# TYPE foo gauge\nfoo x\n'],
  ['an unknown escape in a label value', '# TYPE foo gauge\nfoo{a="\\t"} 1\n'],
  ['an unclosed label value', '# TYPE foo gauge\nfoo{a="b} 1\n'],
  ['a bad label name', '# TYPE foo gauge\nfoo{1a="b"} 1\n'],
  ['the same series twice', '# TYPE foo gauge\nfoo{a="b"} 1\nfoo{a="b"} 2\n'],
  ['a family declared twice', '# TYPE foo gauge\nfoo 1\n# TYPE foo gauge\n'],
  ['a histogram whose buckets shrink', '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n'],
  ['a histogram whose +Inf bucket is not its count', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
  ['trailing words after the value and timestamp', '# TYPE foo gauge\nfoo 1 2 3\n'],
] as const) {
  test(`the reader refuses ${why}, naming the line`, () => {
    assert.throws(() => parseExposition(text), /line \d+|h\[/);
  });
}

test('tool calls are counted by service, tool, mode and outcome, retries by the failure retried, breakers by state', async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const tools = toolCallMetrics(registry, metricLabels(registry));
  tools.onCallEnd({ service: 'search', tool: 'search_relevant_information', mode: 'sync', outcome: 'ok', seconds: 0.2 });
  tools.onCallEnd({ service: 'search', tool: 'search_relevant_information', mode: 'sync', outcome: 'unavailable', seconds: 1.5 });
  tools.onRetry({ attempt: 1, retriesLeft: 2, error: new ToolUnavailableError({ service: 'search', tool: 'search_relevant_information', status: 503, code: 'service_unavailable', message: 'busy' }) });
  tools.watchBreakers([new ToolServiceClient({ service: 'search', baseUrl: 'http://127.0.0.1:9' })]);
  const families = parseExposition(await registry.metrics());
  const search = { service: 'search', tool: 'search_relevant_information', mode: 'sync' };
  assert.equal(sampleSum(families, 'switchyard_tool_calls_total', { ...search, outcome: 'ok' }), 1);
  assert.equal(sampleSum(families, 'switchyard_tool_calls_total', { ...search, outcome: 'unavailable' }), 1);
  assert.equal(sampleSum(families, 'switchyard_tool_call_duration_seconds_count', search), 2);
  assert.equal(sampleSum(families, 'switchyard_tool_retries_total', { service: 'search', reason: 'unavailable' }), 1);
  assert.equal(sampleSum(families, 'switchyard_tool_breaker_state', { service: 'search', state: 'closed' }), 1);
  assert.equal(sampleSum(families, 'switchyard_tool_breaker_state', { service: 'search', state: 'open' }), 0);
  assert.ok(!labelValues(families).some((value) => /busy|503/.test(value)), 'no message or status becomes a label');
});
