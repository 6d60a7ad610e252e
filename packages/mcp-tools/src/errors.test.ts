import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolAbortedError, ToolNetworkError, ToolProtocolError, ToolRejectedError, ToolTimeoutError, ToolUnavailableError } from '@switchyard/tool-client';
import { connectionLost, toToolError } from './errors.js';

const map = (error: unknown, aborted = false) => toToolError(error, { service: 'docs', tool: 'search', aborted });

test('transport failures that may pass are retryable and those that will not are final', () => {
  assert.ok(map(new StreamableHTTPError(503, 'busy')) instanceof ToolUnavailableError);
  assert.ok(map(new StreamableHTTPError(429, 'slow down')).retryable);
  const refused = map(new StreamableHTTPError(401, 'no'));
  assert.ok(refused instanceof ToolRejectedError && !refused.retryable);
  const lost = map(new StreamableHTTPError(404, 'Session not found'));
  assert.ok(lost instanceof ToolNetworkError && lost.code === 'session_lost');
  assert.ok(map(new TypeError('fetch failed')) instanceof ToolNetworkError);
  assert.ok(map(new McpError(ErrorCode.ConnectionClosed, 'Connection closed')) instanceof ToolNetworkError);
  assert.ok(map(new McpError(ErrorCode.RequestTimeout, 'Request timed out')) instanceof ToolTimeoutError);
  const invalid = map(new McpError(ErrorCode.InvalidParams, 'bad'));
  assert.ok(invalid instanceof ToolProtocolError && !invalid.retryable);
});

test('a bug in our own code is not mistaken for a lost connection', () => {
  const bug = new TypeError('client.callTool is not a function');
  assert.equal(connectionLost(bug), false);
  assert.ok(map(bug) instanceof ToolProtocolError);
});

test('whatever the SDK throws once the caller aborted is an abort, never retried', () => {
  // The SDK rejects an aborted request with a RequestTimeout McpError wrapping the reason.
  const aborted = map(new McpError(ErrorCode.RequestTimeout, 'AbortError'), true);
  assert.ok(aborted instanceof ToolAbortedError && !aborted.retryable);
});
