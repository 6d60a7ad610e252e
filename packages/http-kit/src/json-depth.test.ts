import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDepthExceeds, jsonTextTooDeep } from './json-depth.js';

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

test('nesting is counted on the text: 64 levels pass, 65 do not, as bytes and as a string', () => {
  for (const text of [nested(64), `{"a":${nested(63)}}`]) {
    assert.equal(jsonDepthExceeds(text, 64), false);
    assert.equal(jsonDepthExceeds(Buffer.from(text), 64), false);
  }
  for (const text of [nested(65), `{"a":${nested(64)}}`]) {
    assert.equal(jsonDepthExceeds(text, 64), true);
    assert.equal(jsonDepthExceeds(Buffer.from(text), 64), true);
  }
});

test('brackets inside strings, escaped quotes and backslashes included, do not count', () => {
  const text = JSON.stringify({ a: '[[[[{{{{', b: 'say \\"[[[[" and \\\\', c: ['\\', '"[', 'ü[[[['] });
  assert.equal(jsonDepthExceeds(text, 2), false);
  assert.equal(jsonDepthExceeds(Buffer.from(text), 2), false);
  assert.equal(jsonDepthExceeds(JSON.stringify({ a: '\\' }) + '[[[', 2), true, 'a string ending in a backslash ends there');
});

test('a body of five million nested brackets is refused in milliseconds, before any parse', () => {
  const raw = Buffer.from(`{"analysis":${nested(5_000_000)}}`);
  const started = performance.now();
  assert.equal(jsonTextTooDeep(raw, 'utf-8', 64), true);
  assert.ok(performance.now() - started < 300, `${performance.now() - started} ms`);
});

test('a body in UTF-16 is decoded before it is counted; an encoding Node cannot decode is left to the check after parsing', () => {
  assert.equal(jsonTextTooDeep(Buffer.from(nested(65), 'utf16le'), 'utf-16le', 64), true);
  assert.equal(jsonTextTooDeep(Buffer.from(nested(3), 'utf16le'), 'utf-16le', 64), false);
  assert.equal(jsonTextTooDeep(Buffer.from(nested(65)), 'utf-32', 64), false);
});
