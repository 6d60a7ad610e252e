/**
 * Following an event stream over real HTTP on loopback: read to `done`, a broken stream resumed
 * with Last-Event-ID, a refusal not retried, and the budgets held against a server that misbehaves
 * on purpose (one that goes silent, one that sends an endless event).
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { EventsUnavailable } from './errors.js';
import { followEvents, type StreamEvent } from './events.js';

const EVENTS = [
  { id: '1-0', type: 'stage', data: { stage: 'search', status: 'running' } },
  { id: '2-0', type: 'stage', data: { stage: 'search', status: 'completed', progress: { percent: 14 } } },
  { id: '3-0', type: 'content', data: { section: 'climax', chunk: 'Hi' } },
  { id: '4-0', type: 'done', data: { status: 'completed' } },
];
const frame = (e: (typeof EVENTS)[number]) => `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/runs/run_1/events`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('events are read in order until done, with their ids and parsed data', async () => {
  const server = await serve((req, res) => {
    assert.equal(req.headers.authorization, 'Bearer k');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('retry: 2000\n\n: keep-alive\n\n');
    for (const e of EVENTS) res.write(frame(e));
    res.end();
  });
  const seen: StreamEvent[] = [];
  const { lastEventId } = await followEvents({ url: server.url, headers: { authorization: 'Bearer k' }, onEvent: (event) => seen.push(event) });
  assert.deepEqual(seen, EVENTS.map((e) => ({ id: e.id, event: e.type, data: e.data })));
  assert.equal(lastEventId, '4-0');
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
    for (const e of after ? rest : rest.slice(0, 2)) res.write(frame(e));
    res.end();
  });
  const seen: string[] = [];
  await followEvents({ url: server.url, headers: {}, backoffMs: 1, onEvent: (event) => seen.push(event.event) });
  assert.deepEqual(seen, ['stage', 'stage', 'content', 'done']);
  assert.deepEqual(resumedFrom, [undefined, '2-0']);
  await server.close();
});

test('a follow given a last event id starts after it', async () => {
  let asked: string | undefined;
  const server = await serve((req, res) => {
    asked = req.headers['last-event-id'] as string | undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(frame(EVENTS[3] as (typeof EVENTS)[number]));
  });
  await followEvents({ url: server.url, headers: {}, lastEventId: '3-0', onEvent: () => undefined });
  assert.equal(asked, '3-0');
  await server.close();
});

test("a refusal (404) is not retried and carries the API's message and status", async () => {
  let calls = 0;
  const missing = await serve((_req, res) => {
    calls += 1;
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"run_not_found","message":"No run run_1"}}');
  });
  const error = await followEvents({ url: missing.url, headers: {}, onEvent: () => undefined }).catch((e: unknown) => e);
  assert.ok(error instanceof EventsUnavailable);
  assert.equal(error.status, 404);
  assert.equal(error.message, 'No run run_1');
  assert.equal(calls, 1);
  await missing.close();
});

test('a stream that never ends in done gives up after its reconnects', async () => {
  let tries = 0;
  const endless = await serve((_req, res) => {
    tries += 1;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n');
  });
  await assert.rejects(followEvents({ url: endless.url, headers: {}, maxReconnects: 2, backoffMs: 1, onEvent: () => undefined }), /ended before done \(3 tries\)/);
  assert.equal(tries, 3);
  await endless.close();
});

test('a stream that goes silent is taken up again after the idle budget, resuming where it was', async () => {
  const resumedFrom: (string | undefined)[] = [];
  const server = await serve((req, res) => {
    const after = req.headers['last-event-id'] as string | undefined;
    resumedFrom.push(after);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (!after) res.write(frame(EVENTS[0] as (typeof EVENTS)[number])); // then nothing, the connection held open
    else for (const e of EVENTS.slice(1)) res.write(frame(e));
  });
  const started = Date.now();
  const seen: string[] = [];
  await followEvents({ url: server.url, headers: {}, idleTimeoutMs: 300, backoffMs: 1, onEvent: (event) => seen.push(event.id ?? '') });
  assert.deepEqual(seen, EVENTS.map((e) => e.id));
  assert.deepEqual(resumedFrom, [undefined, '1-0']);
  assert.ok(Date.now() - started < 5_000, 'the silent connection was given up within its budget');
  await server.close();
});

test('an event past the size budget ends the follow with one clear error, while the server keeps sending', async () => {
  let sent = 0;
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: done\ndata: "');
    // An event that never ends: 64 KiB a tick until the client hangs up.
    const chunk = 'x'.repeat(64 * 1024);
    const timer = setInterval(() => {
      sent += chunk.length;
      res.write(chunk);
    }, 1);
    res.on('close', () => clearInterval(timer));
  });
  // The process keeps answering meanwhile: a timer's lateness is the event loop's stall.
  let worstLagMs = 0;
  let last = Date.now();
  const ticker = setInterval(() => {
    worstLagMs = Math.max(worstLagMs, Date.now() - last - 10);
    last = Date.now();
  }, 10);
  await assert.rejects(followEvents({ url: server.url, headers: {}, maxEventBytes: 1024 * 1024, onEvent: () => undefined }), (error: unknown) => error instanceof EventsUnavailable && /an event larger than 1048576 bytes/.test(error.message));
  clearInterval(ticker);
  assert.ok(sent < 16 * 1024 * 1024, `stopped reading after ${sent} bytes`);
  assert.ok(worstLagMs < 500, `the event loop stalled ${worstLagMs} ms at worst`);
  await server.close();
});

test('aborting the signal stops a follow at once', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
  });
  const controller = new AbortController();
  const following = followEvents({ url: server.url, headers: {}, signal: controller.signal, onEvent: () => undefined });
  setTimeout(() => controller.abort(new Error('stopped by the test')), 50);
  await assert.rejects(following, /stopped by the test/);
  await server.close();
});

test('a follow aborted by its own handler delivers nothing more, even events that came in the same chunk', async () => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Every event in one write: they reach the parser together, as on a loaded machine.
    res.write(EVENTS.map(frame).join(''));
  });
  const controller = new AbortController();
  const seen: StreamEvent[] = [];
  const following = followEvents({ url: server.url, headers: {}, signal: controller.signal, onEvent: (event) => {
    seen.push(event);
    controller.abort(new Error('enough'));
  } });
  await assert.rejects(following, /enough/);
  assert.deepEqual(seen.map((e) => e.id), ['1-0']);
  await server.close();
});
