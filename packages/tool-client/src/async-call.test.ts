import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolvePollUrl } from './async-call.js';
import { ToolProtocolError } from './errors.js';

const scope = { service: 'editing' };

test('a path-only poll_url is resolved under the service URL, path prefix included', () => {
  assert.equal(resolvePollUrl(scope, 'http://127.0.0.1:8104', '/tasks/abc'), 'http://127.0.0.1:8104/tasks/abc');
  assert.equal(resolvePollUrl(scope, 'http://gw.local/editing/', '/tasks/abc'), 'http://gw.local/editing/tasks/abc');
});

test('an absolute poll_url on the same origin is followed', () => {
  assert.equal(resolvePollUrl(scope, 'http://127.0.0.1:8104', 'http://127.0.0.1:8104/tasks/x'), 'http://127.0.0.1:8104/tasks/x');
});

test('a poll_url on another origin is refused', () => {
  for (const pollUrl of ['http://169.254.169.254/latest', '//evil.example/tasks/1', 'http://127.0.0.1:9999/tasks/1', 'https://127.0.0.1:8104/tasks/1']) {
    assert.throws(() => resolvePollUrl(scope, 'http://127.0.0.1:8104', pollUrl), (e: unknown) => e instanceof ToolProtocolError && e.code === 'off_origin_poll_url', pollUrl);
  }
});
