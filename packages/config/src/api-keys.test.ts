import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { EnvError, httpServiceEnvShape, parseEnv } from './index.js';
import { allows, apiKeyList, withImpliedScopes } from './api-keys.js';

const schema = z.object({ ...httpServiceEnvShape(8080) });
const keysOf = (value: string) => parseEnv({ service: 'orchestrator', schema, source: { API_KEYS: value } }).API_KEYS;

test('a key without scopes has every scope, and each scope given implies read', () => {
  assert.deepEqual(keysOf('k1,k2:read,k3:run,k4:admin,k5:read+run,k6:admin+run'), [
    { key: 'k1', scopes: ['read', 'run', 'admin'] },
    { key: 'k2', scopes: ['read'] },
    { key: 'k3', scopes: ['read', 'run'] },
    { key: 'k4', scopes: ['read', 'admin'] },
    { key: 'k5', scopes: ['read', 'run'] },
    { key: 'k6', scopes: ['read', 'run', 'admin'] },
  ]);
});

test('blanks around entries and empty entries are ignored', () => {
  assert.deepEqual(keysOf(' k1 , ,k2:read '), [
    { key: 'k1', scopes: ['read', 'run', 'admin'] },
    { key: 'k2', scopes: ['read'] },
  ]);
});

for (const [what, value, message] of [
  ['an unknown scope', 'k1,k2:reed', /API_KEYS \(value hidden\): entry 2 \(scopes "reed"\): unknown scope "reed"; scopes are read, run, admin, joined by \+$/],
  ['a colon with no scopes after it', 'k1:', /entry 1 \(scopes ""\): unknown scope ""/],
  ['scopes joined by something else than +', 'k1:read run', /entry 1 .*unknown scope "read run"/],
  ['a key given twice', 'k1:read,k2,k1:run', /entry 3 repeats the key of an earlier entry$/],
  ['an empty key before its scopes', ':read', /entry 1: a key is one or more characters other than whitespace , : \+$/],
  ['a key with a space inside', 'my key', /entry 1: a key is/],
] as const) {
  test(`${what} stops start-up with one line naming the entry, never its key`, () => {
    assert.throws(
      () => keysOf(value),
      (error: unknown) => {
        assert.ok(error instanceof EnvError);
        assert.match(error.message, /^orchestrator: invalid environment variable API_KEYS/);
        assert.match(error.message, message);
        assert.ok(!error.message.includes('\n'), 'one line');
        assert.ok(!/\bk1\b|\bk2\b|my key/.test(error.message), `no key in: ${error.message}`);
        return true;
      },
    );
  });
}

test('scopes imply read in a fixed order, and allows() tells whether a scope is held', () => {
  assert.deepEqual(withImpliedScopes(['admin', 'run']), ['read', 'run', 'admin']);
  assert.deepEqual(withImpliedScopes([]), ['read', 'run', 'admin']);
  assert.equal(allows(['read', 'run'], 'run'), true);
  assert.equal(allows(['read', 'admin'], 'run'), false);
  assert.equal(apiKeyList.safeParse('a:read,b:admin').success, true);
});
