/** The compactor tidies the step jobs of the runs it compacts: those refused because their run had ended go. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { RunCompactor } from './compactor.js';
import { markEnded } from '../stage-runner.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

test('a completed run\'s step job refused after the run ended is removed with the compaction; one that failed in its work stays', async () => {
  const store = new RunStore({ redis, prefix: uniquePrefix('compactor'), retentionSeconds: 600 });
  const runId = await store.createRun({ kind: 'story', request: {}, stages: ['a', 'b', 'c'], stepQueues: { a: 'tool-x', b: 'tool-x', c: 'tool-x' } });
  await store.transition({ runId, from: ['queued'], to: 'completed', result: {} });
  const queue = new Queue('tool-x', { connection: redis, prefix: store.prefix });
  // A job added again (or retried after a stall) once its run had completed is refused as
  // stage-runner.ts refuses it (markEnded marks it for the compaction), and it fails.
  await markEnded({ store }, runId, 'a');
  const reasons: Record<string, string> = { [`${runId}.a`]: `run ${runId} is completed`, [`${runId}.b`]: 'the tool broke' };
  const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
  let failed = 0;
  let allFailed = () => undefined as void;
  const failures = new Promise<void>((resolve) => (allFailed = resolve));
  const worker = new Worker('tool-x', (job) => Promise.reject(new UnrecoverableError(reasons[job.id ?? ''] ?? 'unknown')), { connection: workerConnection, prefix: store.prefix });
  worker.on('failed', () => ++failed === 2 && allFailed());
  const compactor = new RunCompactor({ store, connection: redis, logger: createLogger({ name: 'compactor-test', level: 'silent' }), afterMs: 0 });
  try {
    await queue.addBulk(Object.keys(reasons).map((jobId) => ({ name: 'step', data: {}, opts: { jobId } })));
    await failures;
    const report = await compactor.pass();
    assert.deepEqual([report.compacted, report.jobs_removed], [1, 1]);
    assert.equal(await queue.getJobState(`${runId}.a`), 'unknown', 'the refused job is removed');
    assert.equal(await queue.getJobState(`${runId}.b`), 'failed', 'the job that failed in its work stays for a look');
  } finally {
    await worker.close();
    workerConnection.disconnect();
    await compactor.stop();
    await queue.obliterate({ force: true });
    await queue.close();
  }
});
