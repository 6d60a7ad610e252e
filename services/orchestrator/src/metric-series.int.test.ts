/**
 * Metric series from user definitions are bounded: a caller registering and running many distinct
 * pipelines, each with steps of its own, grows the API's and the workers' `/metrics` only up to
 * the budgets, the rest counted as `other`, while the shipped pipelines keep their names.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OTHER_LABEL } from '@switchyard/metrics';
import { parseExposition, sampleSum, scrape, type MetricFamily } from '@switchyard/metrics/testing';
import { shippedStepNames } from '@switchyard/pipeline';
import { finishedRun, registerPipeline, startRun } from './testing/pipelines.js';
import { startTestStack, type TestStack } from './testing/stack.js';

const PIPELINES = 40;
const STEPS = 3;
const BUDGET = { maxPipelines: 5, maxStages: 10, maxTools: 100 };

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'metric-series', metricSeries: BUDGET });
});
after(() => stack.close());

/** The distinct values of `labels` among a family's samples (a histogram's: its `_count` samples). */
function distinct(families: Map<string, MetricFamily>, family: string, labels: string[]): Set<string> {
  const samples = (families.get(family)?.samples ?? []).filter((sample) => families.get(family)?.type !== 'histogram' || sample.name.endsWith('_count'));
  return new Set(samples.map((sample) => labels.map((label) => sample.labels[label] ?? '').join('/')));
}

const seriesCount = (families: Map<string, MetricFamily>) => [...families.values()].reduce((sum, family) => sum + family.samples.length, 0);

test(`${PIPELINES} registered pipelines of ${STEPS} steps each, all run, leave the series of /metrics within their budgets`, { timeout: 180_000 }, async () => {
  const workers = stack.workerMetrics;
  assert.ok(workers, 'the stack keeps the workers\' metrics');
  const before = { api: seriesCount(await scrape(stack.api.url)), workers: seriesCount(parseExposition(await workers.registry.metrics())) };

  const names = Array.from({ length: PIPELINES }, (_, i) => `flood-${i}`);
  for (const name of names) {
    await registerPipeline(stack, {
      name,
      input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
      steps: Object.fromEntries(Array.from({ length: STEPS }, (_, j) => [`${name}-step-${j}`, { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 1 } }])),
    });
  }
  const runIds = await Promise.all(names.map((name) => startRun(stack, name, { topic: 'a flood of names' })));
  for (const runId of runIds) assert.equal((await finishedRun(stack, runId, 120_000)).status, 'completed');
  // A story after the flood: the shipped pipeline and its steps are still counted by name.
  const story = (await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'after the flood' }) })).body.run_id;
  assert.equal((await finishedRun(stack, story)).status, 'completed');

  const api = await scrape(stack.api.url);
  const worker = parseExposition(await workers.registry.metrics());
  const shipped = shippedStepNames();
  const shippedSteps = Object.values(shipped).flat().length;
  const pipelines = distinct(api, 'switchyard_runs_started_total', ['pipeline']);
  const stagePairs = distinct(worker, 'switchyard_stage_duration_seconds', ['pipeline', 'stage']);
  process.stdout.write(
    `# ${PIPELINES} pipelines × ${STEPS} steps run: API series ${before.api} → ${seriesCount(api)} (pipelines labelled ${pipelines.size}); workers' series ${before.workers} → ${seriesCount(worker)} (stage pairs ${stagePairs.size}, against ${PIPELINES * STEPS} unbounded)\n`,
  );

  assert.ok(pipelines.has('story') && pipelines.has(OTHER_LABEL), [...pipelines].join(', '));
  assert.ok(pipelines.size <= Object.keys(shipped).length + BUDGET.maxPipelines + 1, `${pipelines.size} pipelines labelled`);
  assert.equal(sampleSum(api, 'switchyard_runs_started_total'), PIPELINES + 1, 'every run is counted');
  assert.ok(stagePairs.has('story/polish') && stagePairs.has(`${OTHER_LABEL}/${OTHER_LABEL}`), [...stagePairs].join(', '));
  // Each pipeline named may also have its steps past the budget as `other`.
  assert.ok(stagePairs.size <= shippedSteps + BUDGET.maxStages + BUDGET.maxPipelines + 1, `${stagePairs.size} stage pairs labelled`);
  assert.equal(sampleSum(worker, 'switchyard_stage_duration_seconds_count', { outcome: 'completed' }), PIPELINES * STEPS + sampleSum(worker, 'switchyard_stage_duration_seconds_count', { pipeline: 'story', outcome: 'completed' }));
  assert.ok(sampleSum(worker, 'switchyard_metric_labels_folded_total') > 0);
});
