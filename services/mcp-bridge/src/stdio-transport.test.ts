import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioTransport } from './stdio-transport.js';

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

test('a message nested 100,000 deep is refused by its id before it is parsed, and the next message is read', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new BoundedStdioTransport({ input, output });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  await transport.start();

  const started = performance.now();
  input.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"start_story","arguments":{"topic":${nested(100_000)}}},"id":7}\n`);
  const [answer] = (await once(output, 'data')) as [Buffer];
  const elapsed = performance.now() - started;
  const refusal = JSON.parse(answer.toString()) as { id: number; error: { code: number; message: string } };
  assert.equal(refusal.id, 7);
  assert.equal(refusal.error.code, -32600);
  assert.match(refusal.error.message, /nested deeper than 64 levels/);
  assert.ok(elapsed < 500, `refused in ${elapsed.toFixed(0)} ms`);
  assert.equal(received.length, 0, 'nothing of it was handed on');
  assert.equal(errors.length, 1);

  input.write('{"jsonrpc":"2.0","method":"ping","id":8}\n');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(received, [{ jsonrpc: '2.0', method: 'ping', id: 8 }]);
  await transport.close();
});
