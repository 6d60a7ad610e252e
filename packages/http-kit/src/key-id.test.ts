import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request, Response } from 'express';
import { apiKeyAuth, keyId, requestKeyId } from './auth.js';

const request = (headers: Record<string, string>) => ({ method: 'GET', headers, socket: { remoteAddress: '127.0.0.1' }, get: ((name: string) => headers[name.toLowerCase()]) as Request['get'] }) as unknown as Request;

/** Runs the middleware and answers the key id it recorded and what it passed to next. */
function authenticate(headers: Record<string, string>): { keyId: string | undefined; error: unknown } {
  const res = { locals: {} } as Response;
  let error: unknown = 'next not called';
  apiKeyAuth({ keys: ['key-one', 'key-two'] })(request(headers), res, (passed?: unknown) => (error = passed));
  return { keyId: requestKeyId(res), error };
}

test('a key id is short, the same for the same key, differs between keys, and does not contain the key', () => {
  assert.match(keyId('key-one'), /^[0-9a-f]{16}$/);
  assert.equal(keyId('key-one'), keyId('key-one'));
  assert.notEqual(keyId('key-one'), keyId('key-two'));
  assert.ok(!keyId('key-one').includes('key-one'));
});

test('an accepted request carries the id of its key, however the key is given', () => {
  assert.deepEqual(authenticate({ authorization: 'Bearer key-two' }), { keyId: keyId('key-two'), error: undefined });
  assert.deepEqual(authenticate({ 'x-api-key': 'key-one' }), { keyId: keyId('key-one'), error: undefined });
});

test('a refused request carries no key id', () => {
  const refused = authenticate({ authorization: 'Bearer not-a-key' });
  assert.equal(refused.keyId, undefined);
  assert.equal((refused.error as { status?: number }).status, 401);
});
