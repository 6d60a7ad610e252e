/**
 * A call's `Idempotency-Key`: sent with every attempt of the call, the same each time, in every
 * mode, so that a service can make the call's side effect once however often it is sent.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ToolServiceClient } from './client.js';

let server: Server;
let url: string;
/** The key each `POST /run` carried, in order; the first `failFirst` of them answer 503. */
const seen: (string | undefined)[] = [];
let failFirst = 0;

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/run/')) seen.push(req.headers['idempotency-key'] as string | undefined);
      if (seen.length <= failFirst) {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'service_unavailable', message: 'busy' } }));
        return;
      }
      if (req.url?.includes('stream=true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: content\ndata: {"chunk":"hi"}\n\nevent: done\ndata: {"status":"success","result":{"noted":true}}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { noted: true }, metadata: { execution_time: 1, status: 'success' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () => new ToolServiceClient({ service: 'ledger', baseUrl: url, validateInput: false, retry: { retries: 3, minDelayMs: 5, maxDelayMs: 10 } });

for (const mode of ['sync', 'stream'] as const) {
  test(`a ${mode} call retried after two 503s sends the same Idempotency-Key with each of its three attempts`, async () => {
    seen.length = 0;
    failFirst = 2;
    await client().call({ tool: 'note_fact', args: { key: 'k' }, mode, idempotencyKey: 'run_1/note' });
    assert.deepEqual(seen, ['run_1/note', 'run_1/note', 'run_1/note']);
  });
}

test('a call given no key sends none', async () => {
  seen.length = 0;
  failFirst = 0;
  await client().call({ tool: 'note_fact', args: { key: 'k' } });
  assert.deepEqual(seen, [undefined]);
});
