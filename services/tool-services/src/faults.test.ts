import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultFaults, streamCutPoint } from './faults.js';

test('streams that start together share the cuts left: with one left, one is cut and the rest run to their end', () => {
  const faults = { ...defaultFaults(), streamCutAfterChunks: 2, streamCutsLeft: 1 };
  const points = [streamCutPoint(faults), streamCutPoint(faults), streamCutPoint(faults)];
  assert.deepEqual(points, [2, null, null]);
  assert.equal(faults.streamCutsLeft, 0);
});

test('without a count of cuts, every stream is cut where the knob says', () => {
  const faults = { ...defaultFaults(), streamCutAfterChunks: 3 };
  assert.deepEqual([streamCutPoint(faults), streamCutPoint(faults)], [3, 3]);
});
