import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { startBridgeHttp, type RunningBridge, type StartBridgeHttpOptions } from '@switchyard/mcp-bridge';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '@switchyard/orchestrator/testing';
import { freePort, uniquePrefix } from '@switchyard/redis';
import { ToolAbortedError, ToolInputError } from '@switchyard/tool-client';
import { McpToolResultError } from './errors.js';
import { McpToolSource, type McpToolSourceOptions } from './source.js';

let stack: TestStack;
let bridge: RunningBridge;
let bridgeOptions: StartBridgeHttpOptions;
const QUICK_RETRY = { retries: 8, minDelayMs: 50, maxDelayMs: 300, factor: 1.5 };

before(async () => {
  stack = await startTestStack({ label: 'mcp-tools-http' });
  bridgeOptions = { redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-tools-test', level: 'silent' }) };
  bridge = await startBridgeHttp(bridgeOptions);
});
after(async () => {
  await bridge.close();
  await stack.close();
});

const sourceFor = async (url: string, extra: Partial<McpToolSourceOptions> = {}) => {
  const source = new McpToolSource({ name: 'bridge', server: { url, headers: { authorization: `Bearer ${TEST_API_KEY}` } }, retry: QUICK_RETRY, ...extra });
  await source.start();
  return source;
};

test('the source lists the bridge\'s tools with their schemas and calls a reading tool for its structured result', async (t) => {
  const source = await sourceFor(bridge.mcpUrl);
  t.after(() => source.close());
  const listPipelines = source.tools().find((tool) => tool.name === 'list_pipelines');
  assert.ok(listPipelines, 'list_pipelines is listed');
  assert.equal(listPipelines.inputSchema.type, 'object');
  assert.ok(listPipelines.outputSchema, 'its output schema is listed');
  assert.ok(source.tools().length > 10, 'every page of the listing was read');

  const result = await source.call({ tool: 'list_pipelines', arguments: { limit: 50 } });
  const listed = result.structuredContent as { pipelines: { name: string; tool: string }[] };
  assert.ok(listed.pipelines.some((p) => p.name === 'story' && p.tool === 'pipeline_story'));
});

test('bad arguments are refused by the source itself, naming each problem, and an isError result is a non-retryable tool error', async (t) => {
  const source = await sourceFor(bridge.mcpUrl);
  t.after(() => source.close());
  // The bridge would answer isError for these too: a ToolInputError (not McpToolResultError) shows nothing was sent.
  await assert.rejects(source.call({ tool: 'get_pipeline', arguments: { limit: 'many' } }), (error: unknown) => {
    assert.ok(error instanceof ToolInputError, String(error));
    assert.equal(error.code, 'invalid_parameters');
    assert.equal(error.retryable, false);
    assert.match(error.message, /must have required property 'name'/);
    return true;
  });
  await assert.rejects(source.call({ tool: 'no_such_tool' }), (error: unknown) => error instanceof ToolInputError && error.code === 'tool_not_found');

  await assert.rejects(source.call({ tool: 'get_pipeline', arguments: { name: 'nope' } }), (error: unknown) => {
    assert.ok(error instanceof McpToolResultError, String(error));
    assert.equal(error.retryable, false);
    assert.match(JSON.stringify(error.content), /nope/);
    return true;
  });
});

test('a pipeline registered while the source is connected appears among its tools after tools/list_changed', async (t) => {
  const source = await sourceFor(bridge.mcpUrl);
  t.after(() => source.close());
  assert.ok(!source.tools().some((tool) => tool.name === 'pipeline_harbour-note'));
  const put = await stack.json('/v1/pipelines/harbour-note', {
    method: 'PUT',
    body: JSON.stringify({
      name: 'harbour-note',
      description: 'Looks up a harbour.',
      input: { type: 'object', required: ['harbour'], properties: { harbour: { type: 'string' } } },
      steps: { research: { tool: 'search_relevant_information', args: { topic: 'input.harbour' } } },
    }),
  });
  assert.equal(put.status, 201);
  const tools = await waitFor(async () => source.tools(), (list) => list.some((tool) => tool.name === 'pipeline_harbour-note'), 'the new pipeline is a tool of the source', 10_000);
  assert.deepEqual(tools.find((tool) => tool.name === 'pipeline_harbour-note')?.inputSchema.required, ['harbour']);
  await assert.rejects(source.call({ tool: 'pipeline_harbour-note', arguments: {} }), ToolInputError, 'its schema is enforced at once');
});

test('a call cancelled by its AbortSignal stops within a second', async (t) => {
  // A prefix no worker serves: the run stays queued, so wait_for_run waits until it is cancelled.
  const quiet = await startBridgeHttp({ ...bridgeOptions, prefix: uniquePrefix('mcp-tools-quiet') });
  const source = await sourceFor(quiet.mcpUrl);
  t.after(async () => {
    await source.close();
    await quiet.close();
  });
  const started = await source.call({ tool: 'start_story', arguments: { topic: 'a quiet harbour' } });
  const runId = (started.structuredContent as { run_id: string }).run_id;
  const controller = new AbortController();
  const waiting = source.call({ tool: 'wait_for_run', arguments: { run_id: runId, timeout_s: 60 }, signal: controller.signal, timeoutMs: 60_000 });
  let abortedAt = 0;
  setTimeout(() => {
    abortedAt = performance.now();
    controller.abort();
  }, 300);
  await assert.rejects(waiting, ToolAbortedError);
  assert.ok(abortedAt > 0, 'the call was still waiting when it was cancelled');
  assert.ok(performance.now() - abortedAt < 1000, 'the call stopped within a second of its cancellation');
  // The connection is still good for the next call.
  assert.ok((await source.call({ tool: 'list_pipelines' })).structuredContent);
});

test('the bridge restarted mid-session: the source reconnects and the next call succeeds', async (t) => {
  const port = await freePort();
  let restartable = await startBridgeHttp({ ...bridgeOptions, port });
  const retried: string[] = [];
  const source = await sourceFor(restartable.mcpUrl, { onRetry: (notice) => retried.push(notice.error.code) });
  t.after(async () => {
    await source.close();
    await restartable.close();
  });
  assert.ok((await source.call({ tool: 'list_pipelines' })).structuredContent);

  await restartable.close();
  const during = source.call({ tool: 'list_pipelines' });
  // Bring it back once the source has seen it gone and is retrying.
  await waitFor(async () => retried.length, (n) => n > 0, 'the source retries the call while the bridge is down', 5_000);
  restartable = await startBridgeHttp({ ...bridgeOptions, port });
  const result = await during;
  assert.ok((result.structuredContent as { pipelines: unknown[] }).pipelines.length > 0);
  assert.ok(retried.every((code) => ['connection_failed', 'session_lost', 'connection_closed'].includes(code) || code.startsWith('http_5')), retried.join(','));
  assert.ok((await source.call({ tool: 'list_pipelines' })).structuredContent, 'later calls succeed too');
});
