/**
 * The worker-kill-rate scenario at a small size: 40 stories at short latencies on 4 slots a queue
 * (so the batch lasts several kills), a worker SIGKILLed every 10 s. Every story completes, nothing
 * that completed runs again, and the killed worker's steps are taken over. How soon after the
 * kill is printed with the figures (`stalled_found_s`), not asserted: the lock settings bound it
 * only on an unloaded machine, and the chaos report and benchmarks are where it is watched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testRedis } from '@switchyard/redis';
import { workerKillRate } from './worker-kill-rate.js';

test('with a worker killed every 10 s, every story completes once, and the killed steps are taken over', async (t) => {
  const redis = await testRedis();
  const result = await workerKillRate({
    redis,
    stories: 40,
    killEveryMs: 10_000,
    latencies: { searchMs: 50, outlineMs: 100, writerStreamMs: 1000, polishTaskMs: 300 },
    env: { WORKER_CONCURRENCY: '4' },
  });
  t.diagnostic(JSON.stringify(result.figures));
  process.stdout.write(`# ${JSON.stringify(result.figures)}\n`);
  const figures = result.figures as { kills: number; completed: number; stuck: number; redone_stages: number; duplicated_events: number; stalled_found_s: { count: number; max: number | null } };
  assert.ok(figures.kills >= 2, `${figures.kills} kills`);
  assert.equal(figures.completed, 40);
  assert.equal(figures.stuck, 0);
  assert.equal(figures.redone_stages, 0, 'no step that completed ran again');
  assert.equal(figures.duplicated_events, 0, 'no completion recorded twice');
  assert.ok(figures.stalled_found_s.count >= 1, 'a killed worker held steps that were taken over');
  assert.equal(result.passed, true);
});
