import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundInitialize, InitializeTooLargeError, MAX_CLIENT_INFO_CHARS } from './initialize-bounds.js';

const params = (clientInfo: unknown, rest: Record<string, unknown> = {}) => ({ protocolVersion: '2025-06-18', capabilities: {}, clientInfo, ...rest });

test('small params are kept as they are', () => {
  const given = params({ name: 'agent', version: '1.0', title: 'An agent' });
  assert.deepEqual(boundInitialize(given), given);
});

test("each text field of clientInfo is cut to 256 characters, never halving a surrogate pair; other fields are left alone", () => {
  const long = 'a'.repeat(MAX_CLIENT_INFO_CHARS - 1) + '😀' + 'b'.repeat(10);
  const bounded = boundInitialize(params({ name: 'n'.repeat(100_000), version: long, icons: [{ src: 'x' }] })).clientInfo as Record<string, unknown>;
  assert.equal(bounded.name, 'n'.repeat(MAX_CLIENT_INFO_CHARS));
  assert.equal(bounded.version, 'a'.repeat(MAX_CLIENT_INFO_CHARS - 1), 'the emoji would be cut in half: it is left out whole');
  assert.deepEqual(bounded.icons, [{ src: 'x' }]);
});

test('params over the limit once clientInfo is cut are refused, naming their size and the limit', () => {
  const big = params({ name: 'agent' }, { capabilities: { experimental: { blob: 'x'.repeat(20_000) } } });
  assert.throws(() => boundInitialize(big, 16 * 1024), (error: unknown) => error instanceof InitializeTooLargeError && error.limit === 16 * 1024 && error.bytes > 20_000);
  assert.doesNotThrow(() => boundInitialize(big, 64 * 1024));
});

test('a clientInfo that is not an object is left to the protocol to judge', () => {
  assert.deepEqual(boundInitialize(params('just a string')), params('just a string'));
});
