/**
 * What a stage writes to its run's event stream around its work: a quick stage only says it
 * completed (with the run's progress), one that lasts is announced running once, and one that
 * produces content is announced before its first content.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from 'bullmq';
import { readEvents } from '@switchyard/pipeline';
import { runStage } from './stage-runner.js';
import { stageFixture } from './testing/stage-fixture.js';

const fixture = stageFixture('stage-runner');
const deps = () => fixture.deps();
// The happy path never touches the job: only a failure reads its attempts.
const job = {} as Job;

async function events(runId: string): Promise<Record<string, unknown>[]> {
  return (await readEvents({ redis: fixture.redis, key: fixture.store.keys.events(runId), after: '0', count: 100 })).map((e) => ({ type: e.type, ...(JSON.parse(e.data) as Record<string, unknown>) }));
}

/** Resolves once the run's stream holds an event that `matches` (a blocking read, no sleeps). */
async function eventAppears(runId: string, matches: (event: Record<string, unknown>) => boolean): Promise<void> {
  const reader = fixture.redis.duplicate();
  try {
    for (let after = '0'; ; ) {
      const read = await readEvents({ redis: reader, key: fixture.store.keys.events(runId), after, blockMs: 5000, count: 100 });
      if (read.length === 0) throw new Error('no event for 5 s');
      if (read.some((e) => matches({ type: e.type, ...(JSON.parse(e.data) as Record<string, unknown>) }))) return;
      after = read.at(-1)?.id ?? after;
    }
  } finally {
    reader.disconnect();
  }
}

const newRun = () => fixture.store.createRun({ kind: 'test', request: {}, stages: ['quick', 'slow', 'streaming'] });

test('a stage done at once writes one event: its completion, with the run\'s progress', async () => {
  const runId = await newRun();
  await runStage(deps(), job, { runId, name: 'quick', work: async () => ({ ok: true }) }).then((done) => done.recorded);
  assert.deepEqual(await events(runId), [{ type: 'stage', stage: 'quick', status: 'completed', attempt: 1, progress: { percent: 33, completed_stages: 1, total_stages: 3 } }]);
});

test('a stage that lasts is announced running once, before its completion', async () => {
  const runId = await newRun();
  const done = await runStage(deps(), job, { runId, name: 'slow', work: async () => {
    await eventAppears(runId, (e) => e.stage === 'slow' && e.status === 'running');
    return 'slow output';
  } });
  await done.recorded;
  assert.deepEqual((await events(runId)).map((e) => `${String(e.stage)} ${String(e.status)}`), ['slow running', 'slow completed']);
});

test('a stage announcing itself before its content is running before the content, and announced once', async () => {
  const runId = await newRun();
  const done = await runStage(deps(), job, { runId, name: 'streaming', work: async ({ announce }) => {
    announce();
    await fixture.store.appendEvent(runId, 'content', { stage: 'streaming', section: 'streaming', chunk: 'Once' });
    announce();
    return 'Once';
  } });
  await done.recorded;
  assert.deepEqual((await events(runId)).map((e) => `${e.type} ${String(e.status ?? e.chunk)}`), ['stage running', 'content Once', 'stage completed']);
});
