/**
 * The realistic bench at a tiny size: the whole stack as processes, twenty stories with short
 * latencies. Checks that every story completed and that the report has each figure it promises.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testRedis, uniquePrefix } from '@switchyard/redis';
import { benchRealistic } from './realistic.js';

test('the realistic bench runs every story to completion and reports each figure', async () => {
  const redis = await testRedis();
  const report = await benchRealistic({
    redisUrl: redis.url,
    prefix: uniquePrefix('bench-realistic'),
    stories: 20,
    batchSize: 10,
    concurrency: 4,
    latencies: { searchMs: 20, outlineMs: 50, writerStreamMs: 200, polishTaskMs: 100 },
    probesPerSecond: 4,
  });
  process.stdout.write(`# ${JSON.stringify(report.completion)}\n`);
  assert.equal(report.completion.counts.completed, 20);
  assert.equal(report.completion.all_completed, true);
  assert.deepEqual(report.concurrency_per_queue, { search: 4, outline: 4, writing: 4, editing: 4 });
  // 20 stories × 4 sections × 200 ms over 2 × 4 slots, plus one story's 20 + 50 + 200 + 250 ms.
  assert.equal(report.completion.bound.limiting_stage, 'writing');
  assert.equal(report.completion.bound_s, 2.52);
  assert.ok(report.completion.measured_over_bound > 0);
  // Every section streams sentence by sentence: several content events per section.
  assert.ok(report.content_events.per_story >= 8, `content events per story: ${report.content_events.per_story}`);
  assert.ok(report.content_events.per_s_peak > 0);
  assert.ok(report.post_stories_ms.count >= 1);
  assert.equal(report.post_stories_ms.errors, 0);
  for (const name of ['orchestrator', 'worker-1', 'worker-2', 'tool-services']) {
    const rss = report.rss_mb[name];
    assert.ok(rss && rss.samples >= 1 && rss.min > 0 && rss.max >= rss.min, `RSS of ${name}: ${JSON.stringify(rss)}`);
    assert.ok((report.cpu[name]?.cpu_s ?? -1) >= 0, `CPU of ${name}`);
  }
  assert.ok(report.in_flight.peak_in_flight > 0);
  assert.ok(report.redis_memory.peak_mb > 0 && Number.isInteger(report.redis_memory.bytes_per_run_after));
  // "After" is read once the workers have compacted every ended run; the stage times come from the runs' records.
  process.stdout.write(`# ${JSON.stringify({ compaction: report.compaction, redis_memory: report.redis_memory, stage_seconds: report.completion.stage_seconds })}\n`);
  assert.equal(report.compaction.runs_left, 0);
  assert.ok(report.redis_memory.kept_bytes_per_run.max <= 8 * 1024, `a finished run keeps ${report.redis_memory.kept_bytes_per_run.max} bytes at most`);
  assert.equal(report.completion.stage_seconds.writing?.stages, 80);
  // The hand-written baseline ran the same stories on the same services, and was measured alike.
  const versus = report.against_baseline;
  process.stdout.write(`# ${JSON.stringify(versus)}\n`);
  assert.ok(versus, 'the baseline ran');
  assert.equal(versus.baseline.stories, 20);
  assert.equal(versus.baseline.failed, 0);
  assert.ok(versus.baseline.ms_per_story.workers > 0 && versus.baseline.ms_per_story.tool_services > 0, JSON.stringify(versus.baseline));
  assert.ok(versus.cpu_ratio > 0 && Number.isFinite(versus.cpu_ratio));
});
