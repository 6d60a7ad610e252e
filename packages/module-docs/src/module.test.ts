import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ancestorsOf, generateHierarchicalName, ModuleNameError } from './module.js';

test('a top-level module is named by itself, a child by its parent path and its name', () => {
  assert.equal(generateHierarchicalName(undefined, 'utils'), 'utils');
  assert.equal(generateHierarchicalName('utils.parser', 'parse_line'), 'utils.parser.parse_line');
});

test('names hold letters, digits and underscores, and may not start with a digit', () => {
  for (const good of ['a', '_private', 'Parser2', 'x_1_y']) assert.doesNotThrow(() => generateHierarchicalName(undefined, good));
  for (const bad of ['1abc', 'has-dash', 'has space', 'dot.ted', '', 'naïve']) assert.throws(() => generateHierarchicalName(undefined, bad), ModuleNameError, bad);
});

test('a name of 50 characters is accepted and one of 51 refused', () => {
  assert.doesNotThrow(() => generateHierarchicalName(undefined, 'a'.repeat(50)));
  assert.throws(() => generateHierarchicalName(undefined, 'a'.repeat(51)), /longer than 50/);
});

test('five levels are accepted and a sixth is refused', () => {
  assert.equal(generateHierarchicalName('a.b.c.d', 'e'), 'a.b.c.d.e');
  assert.throws(() => generateHierarchicalName('a.b.c.d.e', 'f'), /6 levels deep; at most 5/);
});

test('ancestors are listed nearest first', () => {
  assert.deepEqual(ancestorsOf('a.b.c'), ['a.b', 'a']);
  assert.deepEqual(ancestorsOf('a'), []);
});
