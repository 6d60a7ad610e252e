import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keySlot } from '@switchyard/redis';
import { runKeys } from './keys.js';
import { settleKeys } from './run-settle.js';

const keys = runKeys('{sy}');
const slotsOf = (list: readonly string[]) => new Set(list.map(keySlot));
const runOwn = (id: string) => [keys.run(id), keys.outputs(id), keys.events(id)];
const shared = keySlot(keys.activeRuns);

test("a run's own keys, which its stage, transition, expand and append scripts take, share one slot", () => {
  for (const id of ['run_0', 'run_3f2a9c0d4e5b6a7f8e9d0c1b2a3f4e5d', 'run_{odd}']) assert.equal(slotsOf(runOwn(id)).size, 1, id);
});

test('different runs spread over the slots, so over every master of a cluster', () => {
  const slots = Array.from({ length: 300 }, (_, i) => keySlot(keys.run(`run_${i.toString(16).padStart(32, '0')}`)));
  // Three masters own a third of the 16,384 slots each: 300 runs land in each third.
  const thirds = new Set(slots.map((slot) => Math.floor((slot * 3) / 16384)));
  assert.deepEqual([...thirds].sort(), [0, 1, 2]);
  assert.ok(new Set(slots).size > 250);
});

test("what many runs share is in the shared slot, BullMQ's queues with it, and no run's keys are", () => {
  const sharedKeys = [keys.runIndex, keys.batchIndex, keys.activeRuns, keys.reconcilerLease, keys.janitorLease, keys.idempotency('runs:abc'), keys.batch('batch_1'), keys.batchRuns('batch_1'), keys.batchEvents('batch_1'), keys.batchStatuses('batch_1'), '{sy}:tool-search:wait', '{sy}:kind-aceflow-stage:meta'];
  assert.deepEqual([...slotsOf(sharedKeys)], [shared]);
  assert.deepEqual(slotsOf(settleKeys(keys, 'batch_1')), new Set([shared]), 'the settle script: active index and batch keys in one slot');
  assert.deepEqual(slotsOf(settleKeys(keys, null)), new Set([shared]));
  assert.notEqual(keySlot(keys.run('run_sy')), shared);
});

test('`sy` and `{sy}` name the same keys, and every key starts with `{sy` followed by `}` or `:` (the SCAN pattern)', () => {
  const plain = runKeys('sy');
  assert.deepEqual([plain.run('r'), plain.events('r'), plain.activeRuns, plain.batch('b')], [keys.run('r'), keys.events('r'), keys.activeRuns, keys.batch('b')]);
  assert.equal(keys.pattern, '{sy[}:]*');
  for (const key of [...runOwn('run_1'), keys.activeRuns, keys.batch('b'), keys.idempotency('x')]) assert.match(key, /^\{sy[}:]/, key);
});
