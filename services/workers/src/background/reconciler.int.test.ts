/**
 * The reconciler's reading of BullMQ's failed event for a job that stalled past BullMQ's limit:
 * the run fails, unless the job's stage had completed before (its worker died between its stage's
 * completion and the job's), when the run goes on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { UnrecoverableError, type Job } from 'bullmq';
import { createLogger } from '@switchyard/logger';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import type { Redis } from 'ioredis';
import { RunReconciler } from './reconciler.js';

let redis: Redis;
let store: RunStore;
let reconciler: RunReconciler;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
  const prefix = uniquePrefix('reconciler');
  store = new RunStore({ redis, prefix });
  reconciler = new RunReconciler({ store, connection: redis, prefix, logger: createLogger({ name: 'test', level: 'silent' }) });
});
after(async () => {
  await reconciler.stop();
  await redis.quit();
});

// As BullMQ's worker fails it: a deferred failure, unrecoverable.
const stalledPastLimit = new UnrecoverableError('job stalled more than allowable limit');
const jobOf = (runId: string, stage: string) => ({ id: `${runId}.${stage}`, name: 'step', data: { run_id: runId }, attemptsMade: 0, opts: { attempts: 3 } }) as unknown as Job;

test('a job failed for stalling past the limit after its stage completed leaves its run going', async () => {
  const runId = await store.createRun({ kind: 'p', request: {}, stages: ['a', 'b'] });
  await store.transition({ runId, from: ['queued'], to: 'running' });
  await store.setStageStatus({ runId, stage: 'a', status: 'completed' });
  await reconciler.onJobFailed(jobOf(runId, 'a'), stalledPastLimit);
  assert.equal(await store.getStatus(runId), 'running');
});

test('a job failed for stalling past the limit before its stage completed fails its run', async () => {
  const runId = await store.createRun({ kind: 'p', request: {}, stages: ['a', 'b'] });
  await store.transition({ runId, from: ['queued'], to: 'running' });
  await store.setStageStatus({ runId, stage: 'a', status: 'running' });
  await reconciler.onJobFailed(jobOf(runId, 'a'), stalledPastLimit);
  assert.equal(await store.getStatus(runId), 'failed');
  assert.equal((await store.getRun(runId))?.error?.code, 'job_failed');
});
