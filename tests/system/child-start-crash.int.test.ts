/**
 * A child run whose starter died midway: the parent's job wrote the child's record and was killed
 * before the child's first step was queued. Each test leaves Redis as such a kill leaves it (no
 * worker runs while it is set up), then starts the workers: the parent's job, taken again, must
 * finish starting the child, and both runs complete.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { newPipelineRun, PipelineStore, RunStore } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { createHttpTools, startWorkers, type RunningWorkers } from '@switchyard/workers';
import type { Redis } from 'ioredis';
import { childRunId } from '../../services/workers/src/engine/child-runs.js';
import { finishedRun, registerPipeline, startRun, stageOf } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
let redis: Redis;
let store: RunStore;
let workers: RunningWorkers | undefined;

before(async () => {
  stack = await startTestStack({ label: 'child-start-crash', inProcessWorkers: false });
  redis = createRedisClient(stack.redisUrl);
  store = new RunStore({ redis, prefix: stack.prefix });
  await registerPipeline(stack, {
    name: 'csc-child',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic', depth: 1 } } },
    output: '{ "topic": input.topic, "found": $count(steps.find.results) }',
  });
  await registerPipeline(stack, {
    name: 'csc-parent',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { research: { pipeline: 'csc-child', args: { topic: "'child of ' & input.topic" } } },
    output: 'steps.research',
  });
});
after(async () => {
  await workers?.close(2000);
  await stack.close();
  await redis.quit();
});

/** Writes what the parent's job had written of its child when it died: the link, the record, and with `indexed` its index entries. */
async function childLeftHalfStarted(parentId: string, topic: string, options: { indexed: boolean }): Promise<string> {
  const childId = childRunId(parentId, 'research');
  const pipelines = new PipelineStore({ redis, prefix: stack.prefix });
  const pipeline = await pipelines.compiled('csc-child');
  assert.ok(pipeline);
  await redis.hset(store.keys.run(parentId), 'research.child_run', childId);
  await store.createRun(await newPipelineRun(pipeline, { topic: `child of ${topic}` }, childId, store.limits));
  if (!options.indexed) await redis.multi().zrem(store.keys.runIndex, childId).zrem(store.keys.activeRuns, childId).exec();
  return childId;
}

async function startTheWorkers(): Promise<void> {
  workers ??= await startWorkers({
    redisUrl: stack.redisUrl,
    prefix: stack.prefix,
    logger: createLogger({ name: 'test', level: 'silent' }),
    tools: createHttpTools(stack.toolConfig, { retry: { retries: 1, minDelayMs: 20, maxDelayMs: 100 } }),
    lockDurationMs: 5000,
    stalledIntervalMs: 1000,
  });
}

test('a child whose record was written but never started (its parent, index entries and first step missing) is started when the parent\'s job is taken again', async () => {
  const parents = await Promise.all(['sluices', 'locks'].map((topic) => startRun(stack, 'csc-parent', { topic })));
  // Killed after the record's hash (before its index entries), and after the whole record.
  const children = [await childLeftHalfStarted(parents[0] as string, 'sluices', { indexed: false }), await childLeftHalfStarted(parents[1] as string, 'locks', { indexed: true })];
  await startTheWorkers();
  for (const [i, parentId] of parents.entries()) {
    const parent = await finishedRun(stack, parentId, 30_000);
    assert.equal(parent.status, 'completed', JSON.stringify(parent.error ?? parent.stages));
    assert.equal(stageOf(parent, 'research')?.child_run, children[i]);
    const child = (await stack.json<{ status: string; parent?: unknown }>(`/v1/runs/${children[i]}`)).body;
    assert.equal(child.status, 'completed');
    assert.deepEqual(child.parent, { run_id: parentId, stage: 'research' }, 'the child names its parent');
    assert.notEqual(await redis.zscore(store.keys.runIndex, children[i] as string), null, 'the child is listed');
    assert.equal(await redis.zscore(store.keys.activeRuns, children[i] as string), null, 'the child has left the active index');
  }
});
