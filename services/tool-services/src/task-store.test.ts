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
