import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetricsRegistry, LabelBudget, metricLabels, OTHER_LABEL, runMetrics, toolCallMetrics } from './index.js';
import { parseExposition, sampleSum } from './testing/index.js';

const shipped = { story: ['search', 'outline', 'write', 'polish'] };

test('a budget admits the values it keeps and the first ones it meets up to its size, and nothing after', () => {
  const budget = new LabelBudget(2, ['kept']);
  assert.deepEqual(['a', 'kept', 'b', 'a', 'c', 'kept', 'b', 'd'].map((value) => budget.admit(value)), [true, true, true, true, false, true, true, false]);
  assert.equal(budget.size, 2);
});

test('thousands of pipelines, steps and tools make a bounded number of series; the shipped ones keep their names, and what was folded is counted', async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const labels = metricLabels(registry, { maxPipelines: 5, maxStages: 10, maxTools: 8, shipped });
  const runs = runMetrics(registry, labels);
  const tools = toolCallMetrics(registry, labels);
  const stages = new Set<string>();
  for (let i = 0; i < 5000; i += 1) {
    runs.created({ pipeline: `flood-${i}`, count: 1 });
    const stage = labels.stage(`flood-${i % 50}`, `step-${i}`);
    stages.add(`${stage.pipeline}/${stage.stage}`);
    tools.onCallEnd({ service: 'search', tool: `tool-${i}`, mode: 'sync', outcome: 'ok', seconds: 0.01 });
  }
  // Met after the flood, the shipped pipeline and its steps are still named.
  runs.created({ pipeline: 'story', count: 1 });
  assert.deepEqual(labels.stage('story', 'polish'), { pipeline: 'story', stage: 'polish' });
  assert.deepEqual(labels.stage('flood-4999', 'step-1'), { pipeline: OTHER_LABEL, stage: OTHER_LABEL });

  const families = parseExposition(await registry.metrics());
  const started = families.get('switchyard_runs_started_total')?.samples ?? [];
  assert.deepEqual(started.map((s) => s.labels.pipeline).sort(), ['flood-0', 'flood-1', 'flood-2', 'flood-3', 'flood-4', OTHER_LABEL, 'story'].sort());
  assert.equal(sampleSum(families, 'switchyard_runs_started_total'), 5001, 'nothing is lost, only folded');
  assert.ok(stages.size <= 10 + 5 + 1, `${stages.size} stage label pairs`);
  const toolSeries = families.get('switchyard_tool_calls_total')?.samples ?? [];
  assert.equal(toolSeries.length, 8 + 1, 'eight tools by name, the rest as other');
  assert.equal(sampleSum(families, 'switchyard_tool_calls_total', { tool: OTHER_LABEL }), 5000 - 8);
  assert.equal(sampleSum(families, 'switchyard_metric_labels_folded_total', { label: 'pipeline' }), 5000 - 5);
  assert.equal(sampleSum(families, 'switchyard_metric_labels_folded_total', { label: 'tool' }), 5000 - 8);
  const series = [...families.values()].reduce((sum, family) => sum + family.samples.length, 0);
  process.stdout.write(`# 5000 pipelines, steps and tools: ${series} series in all\n`);
  assert.ok(series < 200, `${series} series`);
});
