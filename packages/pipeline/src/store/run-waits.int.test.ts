/**
 * A wait's record, its run's status and its events change together, in one script each: a job run
 * again after a crash (a turn that asked for an approval, a wait step) must find a wait that was
 * answered as answered, never wait for it again, and no event may be lost between two writes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { RunStore } from './run-store.js';
import { RunWaits, type WaitRecord } from './run-waits.js';

let redis: Redis;
before(async () => {
  redis = createRedisClient((await testRedis()).url);
});
after(() => redis.disconnect());

async function runWithWaits(label: string): Promise<{ store: RunStore; waits: RunWaits; runId: string }> {
  const prefix = uniquePrefix(label);
  const store = new RunStore({ redis, prefix });
  const waits = new RunWaits({ redis, keys: store.keys, prefix });
  const runId = await store.createRun({ kind: 'pipeline', request: {}, stages: ['act'] });
  await store.transition({ runId, from: ['queued'], to: 'running' });
  return { store, waits, runId };
}

const approval = (runId: string, stage = 'act'): WaitRecord => ({ kind: 'approval', key: 'call_1', run_id: runId, pipeline: 'p', stage, created_at: new Date().toISOString(), job: { queue: 'q', id: 'j' }, tool: 'note_fact', arguments: '{}' });
const pending = { stage: 'act', kind: 'approval', key: 'call_1', state: 'pending', tool: 'note_fact' } as const;
const resolved = { ...pending, state: 'resolved', outcome: 'approved' } as const;

async function waitingEvents(store: RunStore, runId: string): Promise<string[]> {
  const entries = await redis.xrange(store.keys.events(runId), '-', '+');
  return entries.flatMap(([, fields]) => (fields[1] === 'waiting' ? [(JSON.parse(fields[3] ?? '{}') as { state: string }).state] : []));
}

test('a wait answered before its turn runs again is not waited for again: the run stays running and the inbox stays empty', async () => {
  const { store, waits, runId } = await runWithWaits('waits-again');
  assert.equal(await waits.park(approval(runId), pending), 'parked');
  assert.equal(await store.getStatus(runId), 'waiting');
  assert.equal((await waits.inbox({ offset: 0, limit: 10 })).total, 1);
  assert.ok(await waits.resolve(runId, 'approval', 'call_1', { stage: 'act', outcome: 'approved', event: resolved }));
  assert.equal(await store.getStatus(runId), 'running');

  // The turn that asked, taken over after its worker died, asks again.
  assert.equal(await waits.park(approval(runId), pending), 'resolved');
  assert.equal(await store.getStatus(runId), 'running', 'the run is not waiting for an answer it has');
  assert.equal((await waits.inbox({ offset: 0, limit: 10 })).total, 0, 'nothing is listed to answer again');
  assert.deepEqual(await waitingEvents(store, runId), ['pending', 'resolved'], 'each event once');
});

test('an approval answered leaves the inbox at once, before its job takes the answer', async () => {
  const { waits, runId } = await runWithWaits('waits-answered');
  assert.equal(await waits.park(approval(runId), pending), 'parked');
  assert.equal((await waits.inbox({ offset: 0, limit: 10 })).items.length, 1);
  assert.equal(await waits.decide(runId, 'call_1', { approve: true, at: new Date().toISOString() }), true);
  const page = await waits.inbox({ offset: 0, limit: 10 });
  assert.deepEqual([page.items.length, page.total], [0, 0], 'nothing left to answer');
  assert.deepEqual(await waits.unansweredOfRun(runId), [], 'nor in the run\'s own list');
  assert.equal((await waits.ofRun(runId)).length, 1, 'its job is still woken on a cancel');
});

test('the pending and resolved events are written by the scripts that park and resolve, once each however often they are sent', async () => {
  const { store, waits, runId } = await runWithWaits('waits-events');
  assert.equal(await waits.park(approval(runId), pending), 'parked');
  assert.equal(await waits.park(approval(runId), pending), 'exists', 'a job parking again');
  await waits.resolve(runId, 'approval', 'call_1', { stage: 'act', outcome: 'approved', event: resolved });
  assert.equal(await waits.resolve(runId, 'approval', 'call_1', { stage: 'act', outcome: 'approved', event: resolved }), undefined, 'resolved once');
  assert.deepEqual(await waitingEvents(store, runId), ['pending', 'resolved']);
});

test('another stage may wait under the same key after one stage\'s wait ended', async () => {
  const { store, waits, runId } = await runWithWaits('waits-stages');
  await waits.park(approval(runId, 'first'), pending);
  await waits.resolve(runId, 'approval', 'call_1', { stage: 'first', outcome: 'approved' });
  assert.equal(await waits.park(approval(runId, 'second'), pending), 'parked');
  assert.equal(await store.getStatus(runId), 'waiting');
});

test('a run that ended takes no wait', async () => {
  const { store, waits, runId } = await runWithWaits('waits-ended');
  await store.transition({ runId, from: ['running'], to: 'cancelled' });
  assert.equal(await waits.park(approval(runId), pending), 'ended');
  assert.deepEqual(await waitingEvents(store, runId), []);
});
