import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMapList } from '../engine/map-lists.js';
import { DEFAULT_RUN_LIMITS, jsonBytesWithin, RunLimitError, runLimitsConfig, runLimitsEnvShape } from './limits.js';
import { inputTopic, resultTitle, runLabel } from './run-listing.js';
import { z } from 'zod';

test('a value is measured as the bytes JSON.stringify writes, escapes, UTF-8 and left-out values included', () => {
  const values: unknown[] = [null, 0, -1.5e-7, 'héllo "q" \n\u0001', [1, [2, []], {}], { a: 1, b: undefined, c: [undefined, () => 1], ü: { x: 'y' } }, { d: new Date(0) }, [true, false, null, Number.NaN]];
  for (const value of values) assert.equal(jsonBytesWithin(value, 1e9), Buffer.byteLength(JSON.stringify(value)), JSON.stringify(value));
});

test('a measure stops once past its budget: a thousand references to one megabyte are refused without being written out', () => {
  const big = { text: 'x'.repeat(1_000_000) };
  const started = performance.now();
  assert.equal(jsonBytesWithin(Array(1000).fill(big), 8 * 1024 * 1024), undefined);
  assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
  assert.equal(jsonBytesWithin('x'.repeat(10), 11), undefined, 'ten characters and their quotes are 12 bytes');
  assert.equal(jsonBytesWithin('x'.repeat(10), 12), 12);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i += 1) deep = [deep];
  assert.equal(jsonBytesWithin(deep, 1e9), 200_001, 'any depth, without recursion');
});

test('a map list past its count, an item past its bytes, and a list past its bytes are each refused with their own code and variable', () => {
  const limits = { ...DEFAULT_RUN_LIMITS, mapItems: 3, mapItemBytes: 100, mapListBytes: 250 };
  checkMapList('each', ['a', 'b', 'c'], limits);
  const refusal = (items: unknown[]) => {
    try {
      checkMapList('each', items, limits);
    } catch (error) {
      assert.ok(error instanceof RunLimitError);
      return [error.code, error.details.variable, error.details.path];
    }
    return null;
  };
  assert.deepEqual(refusal([1, 2, 3, 4]), ['map_too_large', 'MAP_MAX_ITEMS', undefined]);
  assert.deepEqual(refusal(['x'.repeat(50), 'y'.repeat(200)]), ['map_item_too_large', 'MAP_MAX_ITEM_BYTES', 'steps.each.map[1]']);
  assert.deepEqual(refusal(['x'.repeat(90), 'y'.repeat(90), 'z'.repeat(90)]), ['map_too_large', 'MAP_MAX_LIST_BYTES', 'steps.each.map[2]']);
});

test('the limits read from the environment take their defaults, and each is a whole number of bytes within its range', () => {
  const schema = z.object(runLimitsEnvShape);
  assert.deepEqual(runLimitsConfig(schema.parse({})), DEFAULT_RUN_LIMITS);
  assert.equal(runLimitsConfig(schema.parse({ RUN_MAX_INPUT_BYTES: '2097152' })).inputBytes, 2 * 1024 * 1024);
  assert.equal(schema.safeParse({ STEP_MAX_OUTPUT_BYTES: '12' }).success, false, 'less than a KiB');
  assert.equal(schema.safeParse({ MAP_MAX_ITEMS: '0' }).success, false);
});

test('a listing labels a run by its input\'s topic, title, name or project name, and its result\'s title, cut to 120 characters', () => {
  assert.equal(inputTopic({ topic: '  a lighthouse  ' }), 'a lighthouse');
  assert.equal(inputTopic({ project: { name: 'shop' }, stages: [] }), 'shop');
  assert.equal(inputTopic({ count: 3 }), null);
  assert.equal(inputTopic('just text'), null);
  const long = runLabel('w'.repeat(500));
  assert.equal(long.length, 120);
  assert.ok(long.endsWith('…'));
  assert.ok(!/[\uD800-\uDBFF]…$/.test(runLabel(`${'a'.repeat(118)}😀😀`)), 'never cut through a surrogate pair');
  assert.equal(resultTitle({ title: 'The Keeper', content: '…' }), 'The Keeper');
  assert.equal(resultTitle(['not', 'an', 'object']), null);
});
