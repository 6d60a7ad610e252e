/**
 * A model that stops sending gives its slot back: a stream that sends one chunk and then only SSE
 * comments (which keep a connection alive and are no chunks) fails its attempt once it has sent no
 * chunk for the idle deadline, and the turn fails after its attempts within a few deadlines, not
 * after the attempt timeout; a slow stream whose chunks come within the deadline completes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { ModelCallError } from './errors.js';
import { ModelClient } from './model-client.js';

const IDLE_MS = 400;
let server: Server;
let baseUrl: string;
const open = new Set<ServerResponse>();
let requests = 0;
/** How long each connection was held, ms, from its request to its close. */
const held: number[] = [];

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'hung-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

before(async () => {
  // `/hung/…` sends one chunk, then a comment every 100 ms for ever; `/slow/…` a chunk every 250 ms, then ends.
  server = createServer((req, res) => {
    requests += 1;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    open.add(res);
    const since = performance.now();
    res.on('close', () => {
      open.delete(res);
      held.push(performance.now() - since);
    });
    res.write(chunk({ role: 'assistant', content: 'Thinking' }));
    if (req.url?.startsWith('/hung')) {
      const keepAlive = setInterval(() => res.write(': still here\n\n'), 100);
      res.on('close', () => clearInterval(keepAlive));
      return;
    }
    let sent = 0;
    const tick = setInterval(() => {
      sent += 1;
      if (sent < 4) return void res.write(chunk({ content: ` step ${sent}` }));
      clearInterval(tick);
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    }, 250);
    res.on('close', () => clearInterval(tick));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const res of open) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const clientFor = (path: string) => new ModelClient({ models: new Map([['m', { name: 'm', baseUrl: `${baseUrl}${path}/v1`, apiKey: 'k', model: 'hung-1' }]]), streamIdleMs: IDLE_MS, maxAttempts: 2, baseBackoffMs: 10, maxBackoffMs: 20, timeoutMs: 60_000 });

test(`a stream that sends one chunk and then only comments fails each attempt after ${IDLE_MS} ms without a chunk, and the connection is closed`, async () => {
  requests = 0;
  held.length = 0;
  const started = performance.now();
  const failure = await clientFor('/hung').turn({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal }).then(
    () => assert.fail('the turn was expected to fail'),
    (error: unknown) => error,
  );
  const took = performance.now() - started;
  process.stdout.write(`# a hung stream gave its turn up after ${took.toFixed(0)} ms, each attempt's connection held ${held.map((ms) => ms.toFixed(0)).join(' and ')} ms (the attempt timeout is 60 000 ms)\n`);
  assert.ok(failure instanceof ModelCallError, String(failure));
  assert.equal(failure.code, 'model_unavailable');
  assert.match(failure.message, /LLM_STREAM_IDLE_MS/);
  assert.equal(requests, 2, 'each attempt asked once');
  const deadline = Date.now() + 2000;
  while (open.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(open.size, 0, 'the hung connections were closed');
  // Each connection is given up by the idle deadline, far from the attempt's 60 s. No lower bound:
  // server and client share this process, and after a stall of its event loop (a loaded machine)
  // the client's expired timer runs before the chunk already received is read, which the server
  // sees as a connection held less than the deadline.
  assert.ok(held.every((ms) => ms < 30_000), held.join(', '));
});

test('a slow stream whose chunks come within the idle deadline completes, however long it lasts in all', async () => {
  const reply = await clientFor('/slow').turn({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal });
  assert.equal(reply.content, 'Thinking step 1 step 2 step 3');
  assert.equal(reply.attempts, 1);
});
