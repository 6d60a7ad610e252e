import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { TaskStore } from './task-store.js';

const toError = () => ({ code: 'internal_error', message: 'failed' });

/** Resolves once the task reads as finished, without fixed sleeps. */
async function finished(store: TaskStore, id: string): Promise<void> {
  while (store.poll(id, 0)?.status === 'processing') await nextTurn();
}

test('a finished task is swept once its retention has passed, and a running one never is', async () => {
  const store = new TaskStore(5);
  let release: (value: string) => void = () => undefined;
  const running = store.start(() => new Promise((resolve) => (release = resolve)), toError);
  const done = store.start(async () => 'early', toError);
  await finished(store, done);
  const finishedAt = Date.now();
  while (Date.now() <= finishedAt + 5) await nextTurn();

  const later = store.start(async () => 'late', toError); // a start sweeps
  assert.equal(store.poll(done, 0), undefined, 'the expired task is gone');
  assert.deepEqual(store.poll(running, 0), { task_id: running, status: 'processing' });
  release('at last');
  await finished(store, running);
  assert.deepEqual(store.poll(running, 0), { task_id: running, status: 'completed', result: 'at last' });
  await finished(store, later);
  assert.equal(store.poll(later, 0)?.status, 'completed', 'a task within its retention stays');
});

test('thousands of expired tasks are all swept by one start, and tasks started after them stay', async () => {
  const store = new TaskStore(200);
  const ids = Array.from({ length: 3000 }, (_, i) => store.start(async () => i, toError));
  for (const id of ids) await finished(store, id);
  const allFinishedAt = Date.now();
  while (Date.now() <= allFinishedAt + 200) await nextTurn();

  const next = store.start(async () => 'next', toError);
  for (const id of [ids[0], ids[1500], ids[2999]] as string[]) assert.equal(store.poll(id, 0), undefined);
  await finished(store, next);
  const after = store.start(async () => 'after', toError); // sweeps again, past the trimmed list
  assert.equal(store.poll(next, 0)?.status, 'completed');
  await finished(store, after);
  assert.equal(store.poll(after, 0)?.status, 'completed');
});

/** A store on a clock the test moves; `settle` lets finished work reach the store. */
function clockedStore(options: { retentionMs?: number; readRetentionMs?: number; maxFinished?: number } = {}) {
  const clock = { now: 1_000_000 };
  const store = new TaskStore({ ...options, now: () => clock.now });
  return { store, clock };
}

test('a task whose result has been read is dropped once the read retention has passed, long before its retention', async () => {
  const { store, clock } = clockedStore({ retentionMs: 3_600_000, readRetentionMs: 60_000 });
  const read = store.start(async () => 'read', toError);
  const unread = store.start(async () => 'unread', toError);
  await nextTurn();
  assert.equal(store.poll(read, 0)?.status, 'completed');
  clock.now += 59_000;
  assert.equal(store.poll(read, 0)?.status, 'completed', 'read again within the read retention (a lost answer asked again)');
  clock.now += 2_000;
  assert.equal(store.poll(read, 0), undefined, 'gone after the read retention');
  assert.equal(store.size, 1, 'the unread task stays, within its retention');
  clock.now += 3_600_000;
  assert.equal(store.poll(unread, 0), undefined, 'an unread task goes after its retention');
  assert.equal(store.size, 0);
});

test('over 20,000 tasks each read as it finishes, the tasks held stay at what finished within the read retention', async () => {
  const { store, clock } = clockedStore({ readRetentionMs: 60_000 });
  const held: number[] = [];
  // 20 tasks a simulated second, each polled once done: about 1,200 within any 60 s.
  for (let second = 0; second < 1000; second += 1) {
    const ids = Array.from({ length: 20 }, (_, i) => store.start(async () => ({ polished_content: `story ${second}.${i}` }), toError));
    await nextTurn();
    for (const id of ids) assert.equal(store.poll(id, 0)?.status, 'completed');
    clock.now += 1000;
    held.push(store.size);
  }
  const lastQuarter = held.slice(-250);
  assert.ok(Math.max(...lastQuarter) <= 20 * 62, `at most ${Math.max(...lastQuarter)} tasks held in the last quarter`);
  assert.equal(Math.max(...lastQuarter), Math.max(...held.slice(250, 500)), 'flat: the second quarter held as many as the last');
});

test('tasks started and never read are bounded by the most finished tasks kept, the oldest dropped first', async () => {
  const { store } = clockedStore({ maxFinished: 1000 });
  const ids = Array.from({ length: 50_000 }, (_, i) => store.start(async () => i, toError));
  await nextTurn();
  assert.ok(store.size <= 1000, `${store.size} tasks held`);
  assert.equal(store.poll(ids[0] as string, 0), undefined, 'the oldest is gone');
  assert.equal(store.poll(ids[49_999] as string, 0)?.status, 'completed', 'the newest is kept');
});
