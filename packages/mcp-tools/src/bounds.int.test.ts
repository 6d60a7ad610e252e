import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { waitFor } from '@switchyard/orchestrator/testing';
import { ToolAbortedError, ToolInputError, ToolProtocolError, ToolTimeoutError } from '@switchyard/tool-client';
import { IDEMPOTENCY_META_KEY, McpToolSource } from './source.js';
import { startFixtureServer, type FixtureServer } from './testing/fixture-server.js';

let fixture: FixtureServer;

before(async () => {
  fixture = await startFixtureServer({ extraTools: 120, pageSize: 25 });
});
after(() => fixture.close());

const quick = { retries: 1, minDelayMs: 20, maxDelayMs: 50 };

test('every page of a long tool listing is read', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick });
  t.after(() => source.close());
  await source.start();
  assert.equal(source.tools().length, 124);
});

test('a server listing more tools than MCP_MAX_TOOLS is refused with a clear error', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick, maxTools: 60 });
  t.after(() => source.close());
  await assert.rejects(source.start(), (error: unknown) => error instanceof ToolProtocolError && error.code === 'too_many_tools' && /MCP_MAX_TOOLS/.test(error.message));
});

test('a result past MCP_MAX_RESULT_BYTES is refused, not retried, and the source still answers', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick, maxResultBytes: 64 * 1024 });
  t.after(() => source.close());
  await source.start();
  const callsBefore = fixture.calls;
  // 50 MB asked of the server: the reply is cut off as it streams in, past the budget.
  await assert.rejects(source.call({ tool: 'huge', arguments: { bytes: 50 * 1024 * 1024 } }), (error: unknown) => {
    assert.ok(error instanceof ToolProtocolError, String(error));
    assert.equal(error.code, 'result_too_large');
    assert.equal(error.retryable, false);
    return true;
  });
  assert.equal(fixture.calls - callsBefore, 1, 'not retried');
  // Just past the budget, sent whole: refused by the size check after parsing.
  await assert.rejects(source.call({ tool: 'huge', arguments: { bytes: 64 * 1024 + 1 } }), ToolProtocolError);
  const small = await source.call({ tool: 'echo', arguments: { text: 'still here' } });
  assert.deepEqual(small.content, [{ type: 'text', text: 'still here' }]);
});

test('a call past its timeout fails as a timeout after its retries, and the server is told to stop each attempt', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick });
  t.after(() => source.close());
  await source.start();
  const cancelledBefore = fixture.cancelled;
  const started = performance.now();
  await assert.rejects(source.call({ tool: 'hold', timeoutMs: 200 }), ToolTimeoutError);
  assert.ok(performance.now() - started < 2000);
  await waitFor(async () => fixture.cancelled - cancelledBefore, (n) => n === 2, 'the server saw both attempts cancelled', 5_000);
});

test('a cancelled call sends notifications/cancelled, and arguments outside the schema are refused before sending', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick });
  t.after(() => source.close());
  await source.start();
  const cancelledBefore = fixture.cancelled;
  const callsBefore = fixture.calls;
  await assert.rejects(source.call({ tool: 'echo', arguments: { text: 5, other: true } }), (error: unknown) => error instanceof ToolInputError && /text must be string/.test(error.message) && /additional properties/.test(error.message));
  assert.equal(fixture.calls, callsBefore, 'nothing was sent');
  const controller = new AbortController();
  const held = source.call({ tool: 'hold', signal: controller.signal, timeoutMs: 30_000 });
  await waitFor(async () => fixture.calls, (n) => n > callsBefore, 'the server holds the call');
  controller.abort();
  await assert.rejects(held, ToolAbortedError);
  await waitFor(async () => fixture.cancelled - cancelledBefore, (n) => n === 1, 'the server saw the call cancelled', 5_000);
});

test('calls of made-up tool names are refused locally and list the tools again at most once a second', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick });
  t.after(() => source.close());
  await source.start();
  const listsBefore = fixture.lists;
  const callsBefore = fixture.calls;
  const refusals = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => source.call({ tool: `made_up_${i}` })));
  assert.ok(refusals.every((r) => r.status === 'rejected' && r.reason instanceof ToolInputError && r.reason.code === 'tool_not_found'));
  assert.equal(fixture.calls, callsBefore, 'no call was sent');
  // 123 tools at 25 a page: one listing is 5 pages.
  assert.ok(fixture.lists - listsBefore <= 5, `${fixture.lists - listsBefore} pages listed`);
});

test('a call whose connection drops after it was sent is not sent again: it fails as call_cut_off, and the server saw it once', async (t) => {
  const source = new McpToolSource({ name: 'fixture', server: { url: fixture.url }, retry: quick });
  t.after(() => source.close());
  await source.start();
  const callsBefore = fixture.calls;
  await assert.rejects(source.call({ tool: 'drop', idempotencyKey: 'run_1/think/1/0' }), (error: unknown) => {
    assert.ok(error instanceof ToolProtocolError, String(error));
    assert.equal(error.code, 'call_cut_off');
    assert.equal(error.retryable, false);
    return true;
  });
  assert.equal(fixture.calls - callsBefore, 1, 'sent once');
  assert.deepEqual(fixture.metas.at(-1), { [IDEMPOTENCY_META_KEY]: 'run_1/think/1/0' }, 'the call carried its idempotency key');
  // The source connects again for the next call.
  const next = await source.call({ tool: 'echo', arguments: { text: 'after' } });
  assert.deepEqual(next.content, [{ type: 'text', text: 'after' }]);
});
