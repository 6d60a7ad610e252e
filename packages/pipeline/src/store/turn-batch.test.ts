import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TurnBatch } from './turn-batch.js';

test('items pushed in one turn are handed over once, in order, and a later turn gets a hand-over of its own', async () => {
  const handed: number[][] = [];
  const batch = new TurnBatch<number>((items) => handed.push(items));
  batch.push(1);
  await Promise.resolve();
  batch.push(2);
  batch.push(3);
  assert.deepEqual(handed, []);
  await nextTurn();
  assert.deepEqual(handed, [[1, 2, 3]]);
  batch.push(4);
  await nextTurn();
  assert.deepEqual(handed, [[1, 2, 3], [4]]);
});

test('drain hands over at once, and the turn it was gathered in then hands over nothing more', async () => {
  const handed: string[][] = [];
  const batch = new TurnBatch<string>((items) => handed.push(items));
  batch.push('a');
  batch.drain();
  assert.deepEqual(handed, [['a']]);
  await nextTurn();
  batch.drain();
  assert.deepEqual(handed, [['a']]);
});
