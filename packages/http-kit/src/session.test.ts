import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Request } from 'express';
import { presentedSession, sameOriginOrSafe, sessionCookie } from './session.js';

const request = (headers: Record<string, string>, method = 'GET') => ({ method, get: ((name: string) => headers[name.toLowerCase()]) as Request['get'] });

test('the session cookie is read among other cookies', () => {
  assert.equal(presentedSession(request({ cookie: 'theme=dark; sy_session=abc-123; other=1' })), 'abc-123');
  assert.equal(presentedSession(request({ cookie: 'theme=dark' })), undefined);
  assert.equal(presentedSession(request({})), undefined);
});

test('a state change with the cookie must name this host as its origin; reads need not', () => {
  assert.equal(sameOriginOrSafe(request({ host: '127.0.0.1:8080' }, 'GET')), true);
  assert.equal(sameOriginOrSafe(request({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, 'DELETE')), true);
  assert.equal(sameOriginOrSafe(request({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8081' }, 'DELETE')), false);
  assert.equal(sameOriginOrSafe(request({ host: '127.0.0.1:8080', origin: 'null' }, 'POST')), false);
  assert.equal(sameOriginOrSafe(request({ host: '127.0.0.1:8080' }, 'POST')), false, 'no Origin, no state change');
});

test('the cookie opens with no lifetime of its own, Secure only over HTTPS, and closes with Max-Age=0', () => {
  assert.equal(sessionCookie('tok', { secure: false }), 'sy_session=tok; Path=/; HttpOnly; SameSite=Strict');
  assert.match(sessionCookie('tok', { secure: true }), /; Secure$/);
  assert.equal(sessionCookie(undefined, { secure: false }), 'sy_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict');
});
