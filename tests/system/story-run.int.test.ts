import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SECTION_ORDER, type StoryResult } from '@switchyard/contracts';
import { runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'story-run' });
});
after(() => stack.close());

test('a story runs end to end: research feeds the outline, the outline each section, the sections the polish', async () => {
  const created = await stack.json<{ run_id: string; status: string; poll_url: string; events_url: string }>('/v1/stories', {
    method: 'POST',
    body: JSON.stringify({ topic: 'a beekeeper who hears the hive sing', style: 'descriptive', target_audience: 'young_adult', focus_areas: ['pacing'] }),
  });
  assert.equal(created.status, 202);
  assert.equal(created.body.status, 'queued');
  assert.equal(created.body.poll_url, `/v1/runs/${created.body.run_id}`);
  assert.equal(created.headers.get('location'), created.body.poll_url);
  assert.equal(created.body.events_url, `/v1/runs/${created.body.run_id}/events`);

  const run = await stack.waitForRun(created.body.run_id);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(run.progress, 100);
  const stages = run.stages as { name: string; status: string; attempts: number; started_at: string; finished_at: string }[];
  assert.deepEqual(stages.map((s) => s.name), ['search', 'outline', ...SECTION_ORDER.map((s) => `write.${s}`), 'polish']);
  for (const stage of stages) {
    assert.equal(stage.status, 'completed');
    assert.equal(stage.attempts, 1);
    assert.ok(stage.started_at <= stage.finished_at);
  }
  // The result holds every stage's output, so the outputs are not kept beside it.
  const redis = createRedisClient(stack.redisUrl);
  try {
    assert.equal(await redis.exists(runKeys(stack.prefix).outputs(created.body.run_id)), 0);
  } finally {
    redis.disconnect();
  }
  const result = run.result as StoryResult;
  assert.match(result.title.toLowerCase(), /beekeeper|hive/);
  assert.deepEqual(result.sections.map((s) => s.name), [...SECTION_ORDER]);
  assert.ok(result.research.length > 0);
  assert.equal(result.outline.title, result.title);
  // The polished story is the four sections in order, edited: each section's opening survives.
  let position = -1;
  for (const section of result.sections) {
    const opening = section.content.split(/\s+/).slice(0, 3).join(' ');
    const at = result.content.indexOf(opening.slice(0, 12));
    assert.ok(at > position, `section ${section.name} appears in order`);
    position = at;
  }
  assert.ok(result.word_count > 500);
  assert.ok(result.improvements.some((i) => i.type));
});

test('runs are listed newest first, and can be filtered by status', async () => {
  const ids: string[] = [];
  for (const topic of ['a first small tale', 'a second small tale']) {
    const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic }) });
    ids.push(body.run_id);
    await stack.waitForRun(body.run_id);
  }
  const listed = await stack.json<{ runs: { run_id: string; status: string }[] }>('/v1/runs?limit=2');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body.runs.map((r) => r.run_id), [...ids].reverse());
  const failed = await stack.json<{ runs: unknown[] }>('/v1/runs?status=failed');
  assert.deepEqual(failed.body.runs, []);
  const bad = await stack.json<{ error: { code: string } }>('/v1/runs?status=sleeping');
  assert.equal(bad.status, 400);
});
