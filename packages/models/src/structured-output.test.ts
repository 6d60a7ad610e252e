import assert from 'node:assert/strict';
import { test } from 'node:test';
import { responseFormatFor, responseFormatName, strictAllowed } from './structured-output.js';

const closed = (properties: Record<string, unknown>) => ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties });

test('a schema with every object closed and every property required is strict', () => {
  assert.equal(strictAllowed(closed({ answer: { type: 'string' }, sources: { type: 'array', items: closed({ tool: { type: 'string', enum: ['a', 'b'] } }) } })), true);
});

test('an open object, an optional property, a keyword strict mode lacks or a non-object root is not strict', () => {
  assert.equal(strictAllowed({ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }), false, 'open');
  assert.equal(strictAllowed({ type: 'object', additionalProperties: false, required: [], properties: { a: { type: 'string' } } }), false, 'optional');
  assert.equal(strictAllowed(closed({ a: { type: 'string', minLength: 1 } })), false, 'minLength');
  assert.equal(strictAllowed(closed({ a: { allOf: [{ type: 'string' }] } })), false, 'allOf');
  assert.equal(strictAllowed(closed({ a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } })), false, 'an open item');
  assert.equal(strictAllowed({ type: 'array', items: { type: 'string' } }), false, 'array root');
});

test("a format's name is the stage's, other characters as _, at most 64", () => {
  assert.equal(responseFormatName('research'), 'research');
  assert.equal(responseFormatName('write.intro duction'), 'write_intro_duction');
  assert.equal(responseFormatName('x'.repeat(80)).length, 64);
  assert.deepEqual(responseFormatFor('a.b', closed({ a: { type: 'string' } })), { name: 'a_b', schema: closed({ a: { type: 'string' } }), strict: true });
});

test('a schema nested deeper than strict mode allows is not strict', () => {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 20; i += 1) schema = closed({ a: schema });
  assert.equal(strictAllowed(schema), false);
});
