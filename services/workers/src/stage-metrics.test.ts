import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMetricsRegistry, metricLabels } from '@switchyard/metrics';
import { labelValues, parseExposition, sampleSum } from '@switchyard/metrics/testing';
import { newRunId, type StepJob } from '@switchyard/pipeline';
import { CircuitOpenError, ToolUnavailableError } from '@switchyard/tool-client';
import { StageMetrics } from './stage-metrics.js';
import { SKIP_STAGE } from './stage-runner.js';

const live = { attempt: 1, signal: new AbortController().signal };

test("a map's branches are counted as their step: no branch key, item or run id becomes a label", async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const stages = new StageMetrics(registry, metricLabels(registry));
  const jobs: StepJob[] = [];
  for (let run = 0; run < 3; run += 1) {
    const runId = newRunId();
    for (const [index, key] of ['introduction', 'chapter-7f3a', 'conclusion'].entries()) {
      jobs.push({ run_id: runId, pipeline: 'story', version: 2, step: 'write', branch: { key, index, item: { secret: `item-${run}-${key}` } } });
    }
  }
  for (const job of jobs) await stages.time(job, live, async () => 'text');
  const families = parseExposition(await registry.metrics());
  assert.equal(sampleSum(families, 'switchyard_stage_duration_seconds_count', { pipeline: 'story', stage: 'write', outcome: 'completed' }), 9);
  const series = families.get('switchyard_stage_duration_seconds')?.samples.filter((s) => s.name.endsWith('_count')) ?? [];
  assert.equal(series.length, 1, 'nine branches of three runs make one series');
  const values = new Set(labelValues(families));
  assert.deepEqual([...values].filter((v) => !/^[\d.]+$|^\+Inf$/.test(v)).sort(), ['completed', 'story', 'write']);
  for (const job of jobs) assert.ok(!values.has(job.run_id) && !values.has(job.branch?.key ?? ''), `nothing of ${job.run_id}.${job.branch?.key} is a label`);
  assert.equal(sampleSum(families, 'switchyard_stages_active'), 0, 'every stage has ended');
});

test('how a stage ended is its outcome: completed, skipped, failed, cancelled, or deferred on an open breaker', async () => {
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const stages = new StageMetrics(registry, metricLabels(registry));
  const job = { pipeline: 'story', step: 'polish' };
  const unavailable = new ToolUnavailableError({ service: 'editing', tool: 'polish_story', status: 503, code: 'service_unavailable', message: 'busy' });
  await stages.time(job, live, async () => 'done');
  await stages.time(job, live, async () => SKIP_STAGE);
  await assert.rejects(stages.time(job, live, async () => Promise.reject(unavailable)));
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(stages.time(job, { attempt: 1, signal: aborted.signal }, async () => Promise.reject(new Error('aborted'))));
  const open = new CircuitOpenError({ service: 'editing', tool: 'polish_story', code: 'circuit_open', message: 'paused', retryAfterMs: 1000, lastFailure: unavailable });
  await assert.rejects(stages.time(job, { attempt: 2, signal: live.signal }, async () => Promise.reject(open)));
  const families = parseExposition(await registry.metrics());
  for (const outcome of ['completed', 'skipped', 'failed', 'cancelled', 'deferred']) {
    assert.equal(sampleSum(families, 'switchyard_stage_duration_seconds_count', { stage: 'polish', outcome }), 1, outcome);
  }
  assert.equal(sampleSum(families, 'switchyard_stage_retries_total', { pipeline: 'story', stage: 'polish' }), 1, 'the second attempt is a retry');
});
