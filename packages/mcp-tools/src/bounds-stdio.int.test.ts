import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { ToolProtocolError } from '@switchyard/tool-client';
import { McpToolSource } from './source.js';

const fixture = fileURLToPath(new URL('./testing/fixture-stdio.ts', import.meta.url));

test('over stdio a result past MCP_MAX_RESULT_BYTES is refused and not retried, and the next call starts the server again', async (t) => {
  let retries = 0;
  const source = new McpToolSource({
    name: 'fixture-stdio',
    server: { command: process.execPath, args: ['--import', 'tsx', fixture] },
    maxResultBytes: 64 * 1024,
    retry: { retries: 2, minDelayMs: 20, maxDelayMs: 50 },
    onRetry: () => void retries++,
  });
  t.after(() => source.close());
  await source.start();
  const started = performance.now();
  await assert.rejects(source.call({ tool: 'huge', arguments: { bytes: 20 * 1024 * 1024 } }), (error: unknown) => {
    assert.ok(error instanceof ToolProtocolError, String(error));
    assert.equal(error.code, 'result_too_large');
    return true;
  });
  assert.equal(retries, 0, 'not retried');
  assert.ok(performance.now() - started < 5000);
  const echoed = await source.call({ tool: 'echo', arguments: { text: 'after' } });
  assert.deepEqual(echoed.content, [{ type: 'text', text: 'after' }]);
});

test('over stdio a call whose server died after it was sent is refused with call_cut_off and not sent again, and the next call starts the server again', async (t) => {
  let retries = 0;
  const source = new McpToolSource({
    name: 'fixture-stdio',
    server: { command: process.execPath, args: ['--import', 'tsx', fixture] },
    retry: { retries: 2, minDelayMs: 20, maxDelayMs: 50 },
    onRetry: () => void retries++,
  });
  t.after(() => source.close());
  await source.start();
  await assert.rejects(source.call({ tool: 'drop', arguments: {} }), (error: unknown) => {
    assert.ok(error instanceof ToolProtocolError, String(error));
    assert.equal(error.code, 'call_cut_off');
    return true;
  });
  assert.equal(retries, 0, 'not sent again');
  const echoed = await source.call({ tool: 'echo', arguments: { text: 'after' } });
  assert.deepEqual(echoed.content, [{ type: 'text', text: 'after' }]);
});
