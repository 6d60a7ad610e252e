/**
 * Wire details the reference services do not produce, served by a hand-written HTTP server on
 * loopback: SSE framing variants, a done without a result, error events, foreign poll URLs, and
 * a service that finishes an async call at once.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { test } from 'node:test';
import { ToolServiceClient, type ToolClientOptions } from './client.js';
import { ToolProtocolError, ToolRejectedError, ToolStreamError } from './errors.js';
import { TOOLS_LISTING, startRawServer } from './testing/raw-server.js';

async function withServer(
  route: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  body: (ctx: { client: ToolServiceClient; requests: string[]; port: number }) => Promise<void>,
  clientOptions: Partial<ToolClientOptions> = {},
) {
  const server = await startRawServer((req, res) => {
    if (req.url === '/tools') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(TOOLS_LISTING);
    route(req, res);
  });
  try {
    const client = new ToolServiceClient({ service: 'raw', baseUrl: server.url, retry: { retries: 0 }, poll: { initialDelayMs: 5 }, ...clientOptions });
    await body({ client, requests: server.requests, port: server.port });
  } finally {
    await server.close();
  }
}

const section = { section_name: 'climax', outline: { title: 'Storm', key_points: ['the lamp fails'] } };

test('SSE with CRLF, comments, heartbeats, multi-line data and split writes is read whole', async () => {
  const frames = [
    ': connected\r\n\r\n',
    'event: progress\r\ndata: {"completed": 10, "message": "start"}\r\n\r\n',
    'event: content\r\ndata: {"chunk":\r\ndata:  "The lamp "}\r\n\r\n', // one JSON object over two data lines
    ': keep-alive\r\n\r\n',
    'event: cont', 'ent\r\ndata: {"chunk": "flick', 'ered."}\r\n\r\n', // one event split across writes
    'event: done\r\ndata: {"status": "success"}\r\n\r\n',
  ];
  await withServer(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const next = () => (frames.length ? (res.write(frames.shift()), setImmediate(next)) : res.end());
      next();
    },
    async ({ client }) => {
      const chunks: string[] = [];
      const result = (await client.call({ tool: 'write_story_section', args: section, mode: 'stream', onChunk: (c) => chunks.push(c) })) as { content: string; word_count: number; reading_time: string };
      assert.deepEqual(chunks, ['The lamp ', 'flickered.']);
      assert.equal(result.content, 'The lamp flickered.', 'a done without result is built from the chunks');
      assert.equal(result.word_count, 3);
      assert.equal(result.reading_time, '1 min');
    },
  );
});

test('an error event that names a bad input fails the stream without a retry', async () => {
  await withServer(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('event: error\ndata: {"error":{"code":"invalid_parameters","message":"outline is empty"}}\n\n');
    },
    async ({ client }) => {
      await assert.rejects(client.call({ tool: 'write_story_section', args: section, mode: 'stream' }), (e: unknown) => e instanceof ToolStreamError && !e.retryable && e.code === 'invalid_parameters');
    },
  );
});

test('a poll_url on another origin is refused without being requested', async () => {
  await withServer(
    (req, res) => {
      const port = (req.socket.localPort ?? 0).toString();
      // Same host and port, other origin: "localhost" is not "127.0.0.1".
      res.writeHead(202, { 'Content-Type': 'application/json' }).end(JSON.stringify({ task_id: 't1', status: 'processing', poll_url: `http://localhost:${port}/tasks/t1` }));
    },
    async ({ client, requests }) => {
      await assert.rejects(client.call({ tool: 'polish_story', args: { draft: 'x' }, mode: 'async' }), (e: unknown) => e instanceof ToolProtocolError && e.code === 'off_origin_poll_url');
      assert.deepEqual(requests, ['GET /tools', 'POST /run/polish_story?async=true']);
    },
  );
});

test('a service that answers an async call with the finished result at once is accepted', async () => {
  const result = { polished_content: 'Done.', improvements: [], word_count: 1 };
  await withServer(
    (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result, metadata: { execution_time: 0.01, status: 'success' } })),
    async ({ client }) => {
      assert.deepEqual(await client.call({ tool: 'polish_story', args: { draft: 'x' }, mode: 'async' }), result);
    },
  );
});

test('a reply that breaks the output schema is a protocol error, and extra fields are kept', async () => {
  let reply: unknown = { polished_content: 'Done.', word_count: 1 };
  await withServer(
    (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply)),
    async ({ client }) => {
      await assert.rejects(client.call({ tool: 'polish_story', args: { draft: 'x' } }), (e: unknown) => e instanceof ToolProtocolError && e.code === 'invalid_output');
      reply = { polished_content: 'Done.', improvements: [], word_count: 1, editor: 'raw' };
      assert.deepEqual(await client.call({ tool: 'polish_story', args: { draft: 'x' } }), reply);
    },
  );
});

test('a 429 is retried once the Retry-After the service asked for has passed', async () => {
  const answered: number[] = [];
  await withServer(
    (_req, res) => {
      answered.push(performance.now());
      if (answered.length === 1) return res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ result: { polished_content: 'Ok.', improvements: [], word_count: 1 }, metadata: { execution_time: 0, status: 'success' } }));
    },
    async ({ client }) => {
      assert.equal(((await client.call({ tool: 'polish_story', args: { draft: 'x' } })) as { polished_content: string }).polished_content, 'Ok.');
      assert.equal(answered.length, 2);
      assert.ok((answered[1] ?? 0) - (answered[0] ?? 0) >= 950, 'the retry came after the second the service asked for');
    },
    { retry: { retries: 2, minDelayMs: 1, maxDelayMs: 1 } },
  );
});

test('a 403 and a 422 are not retried', async () => {
  for (const status of [403, 422]) {
    let calls = 0;
    await withServer(
      (_req, res) => {
        calls += 1;
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { code: `refused_${status}`, message: 'no' } }));
      },
      async ({ client }) => {
        const code = status === 403 ? 'tool_auth_refused' : `refused_${status}`;
        await assert.rejects(client.call({ tool: 'polish_story', args: { draft: 'x' } }), (e: unknown) => e instanceof ToolRejectedError && e.status === status && e.code === code);
        assert.equal(calls, 1);
      },
      { retry: { retries: 3, minDelayMs: 1, maxDelayMs: 1 } },
    );
  }
});
