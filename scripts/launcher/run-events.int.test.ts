/**
 * Following a run's events over real HTTP on loopback: the stream is read to `done`, a broken
 * stream is resumed with Last-Event-ID, and a refusal is not retried.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { EventsUnavailable, followRunEvents } from './run-events.js';

const EVENTS = [
  { id: '1-0', type: 'stage', data: { stage: 'search', status: 'running' } },
  { id: '2-0', type: 'stage', data: { stage: 'search', status: 'completed', progress: { percent: 14 } } },
  { id: '3-0', type: 'content', data: { section: 'climax', chunk: 'Hi' } },
  { id: '4-0', type: 'done', data: { status: 'completed' } },
];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/runs/run_1/events`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('events are read in order until done, with their data parsed', async () => {
  const server = await serve((req, res) => {
    assert.equal(req.headers.authorization, 'Bearer k');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 2000\n\n: keep-alive\n\n');
    for (const e of EVENTS) res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.end();
  });
  const seen: [string, unknown][] = [];
  await followRunEvents({ url: server.url, headers: { authorization: 'Bearer k' }, onEvent: (type, data) => seen.push([type, data]) });
  assert.deepEqual(seen, EVENTS.map((e) => [e.type, e.data]));
  await server.close();
});

test('a stream that breaks before done is resumed from the last event id, nothing seen twice', async () => {
  const resumedFrom: (string | undefined)[] = [];
  const server = await serve((req, res) => {
    const after = req.headers['last-event-id'] as string | undefined;
    resumedFrom.push(after);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const rest = EVENTS.slice(after ? EVENTS.findIndex((e) => e.id === after) + 1 : 0);
    // The first connection breaks after two events.
    for (const e of after ? rest : rest.slice(0, 2)) res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.end();
  });
  const seen: string[] = [];
  await followRunEvents({ url: server.url, headers: {}, backoffMs: 1, onEvent: (type) => seen.push(type) });
  assert.deepEqual(seen, ['stage', 'stage', 'content', 'done']);
  assert.deepEqual(resumedFrom, [undefined, '2-0']);
  await server.close();
});

test('a refusal (404) is not retried, and a stream that never ends in done gives up after a few tries', async () => {
  let calls = 0;
  const missing = await serve((_req, res) => {
    calls += 1;
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"run_not_found"}}');
  });
  await assert.rejects(followRunEvents({ url: missing.url, headers: {}, onEvent: () => undefined }), EventsUnavailable);
  assert.equal(calls, 1);
  await missing.close();

  let tries = 0;
  const endless = await serve((_req, res) => {
    tries += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n');
  });
  await assert.rejects(followRunEvents({ url: endless.url, headers: {}, maxReconnects: 2, backoffMs: 1, onEvent: () => undefined }), /ended before done/);
  assert.equal(tries, 3);
  await endless.close();
});
