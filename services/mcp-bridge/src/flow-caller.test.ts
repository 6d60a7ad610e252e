import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keyId } from '@switchyard/http-kit';
import { callerFlow, callerOfRequest, PRIORITY_META_KEY } from './flow-caller.js';

test("a call's runs are keyed by its session's API key and take the class its _meta asks for", () => {
  const caller = callerOfRequest('secret-key-0123456789', { [PRIORITY_META_KEY]: 2 });
  assert.deepEqual(caller, { keyId: keyId('secret-key-0123456789'), priority: 2 });
  assert.deepEqual(callerFlow({ caller }), { key: `key:${keyId('secret-key-0123456789')}`, priority: 2 });
});

test('a priority argument goes before _meta, and a class that is not 1–9 is left out for the default', () => {
  assert.deepEqual(callerFlow({ caller: callerOfRequest('k', { [PRIORITY_META_KEY]: 2 }) }, 7).priority, 7);
  for (const asked of [0, 10, 2.5, '3', null]) assert.deepEqual(callerOfRequest(undefined, { [PRIORITY_META_KEY]: asked }), {}, String(asked));
  assert.deepEqual(callerFlow({ caller: callerOfRequest(undefined, undefined) }), { key: 'key:-' }, 'over stdio, with no key, one anonymous key');
});
