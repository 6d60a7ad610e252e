import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRng, fnv1a } from './hash.js';

const draws = (seed: string) => {
  const rng = createRng(seed);
  return Array.from({ length: 8 }, () => rng.next());
};

test('the same seed always draws the same sequence', () => {
  assert.deepEqual(draws('lighthouse'), draws('lighthouse'));
});

test('different seeds draw different sequences', () => {
  assert.notDeepEqual(draws('lighthouse'), draws('lighthouses'));
  assert.notEqual(fnv1a('ab'), fnv1a('ba'));
});

test('seed parts are kept apart, so ("ab","c") and ("a","bc") differ', () => {
  assert.notEqual(createRng('ab', 'c').next(), createRng('a', 'bc').next());
});

test('draws stay in range and shuffle keeps every item exactly once', () => {
  const rng = createRng('range');
  for (let i = 0; i < 200; i += 1) {
    const n = rng.between(3, 7);
    assert.ok(n >= 3 && n <= 7 && Number.isInteger(n));
  }
  const items = ['a', 'b', 'c', 'd', 'e', 'f'];
  const shuffled = rng.shuffle(items);
  assert.deepEqual([...shuffled].sort(), items);
  assert.throws(() => rng.pick([]));
});
