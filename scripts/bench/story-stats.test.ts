import assert from 'node:assert/strict';
import { test } from 'node:test';
import { medianInterval } from './story-stats.js';

test('the median\'s 95 % interval is the pair of order statistics the binomial tables give', () => {
  const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  // The textbook ranks: n = 10 → 2nd and 9th, 21 → 6th and 16th, 100 → 40th and 61st.
  assert.deepEqual(medianInterval(ranks(10)), { low: 2, high: 9, coverage: 0.979 });
  assert.deepEqual(medianInterval(ranks(21)), { low: 6, high: 16, coverage: 0.973 });
  assert.deepEqual(medianInterval(ranks(100)), { low: 40, high: 61, coverage: 0.965 });
});

test('values in any order give the same interval, and five values are too few for one at 95 %', () => {
  assert.deepEqual(medianInterval([1.2, 0.9, 1.0, 1.1, 0.95, 1.05]), { low: 0.9, high: 1.2, coverage: 0.969 });
  assert.equal(medianInterval([1, 2, 3, 4, 5]), null);
  assert.deepEqual(medianInterval([1, 2, 3, 4, 5], 0.9), { low: 1, high: 5, coverage: 0.938 });
});
