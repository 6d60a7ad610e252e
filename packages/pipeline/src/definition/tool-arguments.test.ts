import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolArgumentChecker } from './tool-arguments.js';

const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false };

test('arguments are checked against a draft-07 schema as well as a 2020-12 one', () => {
  const checker = new ToolArgumentChecker();
  assert.deepEqual(checker.problems(draft07, { key: 5 }), ['/key must be string']);
  assert.deepEqual(checker.problems({ ...draft07, $schema: 'https://json-schema.org/draft/2020-12/schema' }, {}), ["(arguments) must have required property 'key'"]);
  assert.deepEqual(checker.problems(draft07, { key: 'k' }), []);
});

test('a pattern that would backtrack for hours is checked in linear time', () => {
  const checker = new ToolArgumentChecker();
  const started = performance.now();
  const problems = checker.problems({ type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } }, { a: `${'a'.repeat(40)}!` });
  assert.equal(problems.length, 1);
  // Backtracking takes about 2^40 steps here (hours); a linear engine, milliseconds. The bound is
  // loose so that a loaded machine cannot fail it, and still tells the two apart.
  assert.ok(performance.now() - started < 5_000);
});

test('a schema past the bounds of a definition\'s schemas is left to the tool to check, and compiled schemas are kept within their number', () => {
  const checker = new ToolArgumentChecker({ maxSchemas: 2 });
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 40; i += 1) deep = { type: 'object', properties: { x: deep } };
  assert.deepEqual(checker.problems(deep, { x: 1 }), []);
  for (let i = 0; i < 5; i += 1) assert.equal(checker.problems({ type: 'object', required: [`k${i}`] }, {}).length, 1);
});
