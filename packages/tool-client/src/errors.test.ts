import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolRejectedError, ToolUnavailableError, errorFromStatus, parseRetryAfter } from './errors.js';

test('4xx refusals become non-retryable errors carrying the service code and message', () => {
  for (const status of [400, 404, 422]) {
    const error = errorFromStatus({ status, service: 'search', body: { error: { code: 'invalid_parameters', message: "Parameter 'topic' is required" } } });
    assert.ok(error instanceof ToolRejectedError, `status ${status}`);
    assert.equal(error.retryable, false);
    assert.equal(error.code, 'invalid_parameters');
    assert.equal(error.message, "Parameter 'topic' is required");
  }
});

test('a refused key (401, 403) is a non-retryable error naming the configuration to fix, the service\'s own words kept in details', () => {
  for (const status of [401, 403]) {
    const error = errorFromStatus({ status, service: 'search', body: { error: { code: 'unauthorized', message: 'The API key is not valid' } } });
    assert.ok(error instanceof ToolRejectedError, `status ${status}`);
    assert.equal(error.retryable, false);
    assert.equal(error.code, 'tool_auth_refused');
    assert.match(error.message, /TOOL_SERVICE_API_KEY/);
    assert.deepEqual(error.details, { service_code: 'unauthorized', service_message: 'The API key is not valid' });
  }
});

test('5xx and 429 become retryable errors, with Retry-After kept', () => {
  for (const status of [429, 500, 502, 503, 504]) {
    const error = errorFromStatus({ status, service: 'search', body: 'Bad gateway', retryAfterMs: 1000 });
    assert.ok(error instanceof ToolUnavailableError, `status ${status}`);
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 1000);
  }
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('2'), 2000);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4000), 6000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(null), undefined);
});
