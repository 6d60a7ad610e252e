import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { cosine, createEndpointEmbedder, createHashedEmbedder, EmbeddingError } from './embed.js';
import { splitWords, terms } from './tokens.js';

test('identifiers come apart at camelCase, PascalCase, snake_case and kebab-case', () => {
  assert.deepEqual(splitWords('chargeCard HTTPServer rate_limit token-bucket x'), ['charge', 'card', 'http', 'server', 'rate', 'limit', 'token', 'bucket']);
});

test('search terms drop keywords and stopwords and are stemmed', () => {
  assert.deepEqual(terms('export async function retries() { return the charges }'), ['retri', 'charg']);
});

test('hashed embeddings are unit vectors, the same for the same text, and closer for texts sharing words', async () => {
  const embedder = createHashedEmbedder();
  const [a, again, near, far] = await embedder.embed(['retry with exponential backoff', 'retry with exponential backoff', 'withRetry(task, { backoff })', 'format cents as euros']);
  assert.ok(a && again && near && far);
  assert.equal(a.length, 1024);
  assert.ok(Math.abs(cosine(a, a) - 1) < 1e-5);
  assert.deepEqual(a, again);
  assert.ok(cosine(a, near) > 0.3, `near ${cosine(a, near)}`);
  assert.ok(cosine(a, far) < 0.1, `far ${cosine(a, far)}`);
});

test('word parts bring related forms together where whole words do not', async () => {
  const [authenticate, authentication, unrelated] = await createHashedEmbedder().embed(['authenticate', 'authentication', 'spreadsheet']);
  assert.ok(authenticate && authentication && unrelated);
  assert.ok(cosine(authenticate, authentication) > 0.5);
  assert.ok(cosine(authenticate, unrelated) < 0.2);
});

// A real OpenAI-compatible endpoint on loopback, answering vectors that encode the text's length.
let url: string;
const requests: { auth: string | undefined; body: { model: string; input: string[] } }[] = [];
const server = createServer(async (req, res) => {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model: string; input: string[] };
  requests.push({ auth: req.headers.authorization, body });
  if (body.model === 'broken') {
    res.writeHead(500).end('model crashed');
    return;
  }
  // Out of order on purpose: the client must place vectors by index.
  const data = body.input.map((text, index) => ({ index, embedding: [text.length, 1, 0] })).reverse();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('an OpenAI-compatible endpoint embeds in batches, in order, with the key, as unit vectors', async () => {
  const embedder = createEndpointEmbedder({ url, model: 'test-model', apiKey: 'sk-test', batchSize: 2 });
  const vectors = await embedder.embed(['a', 'bbb', 'cc']);
  assert.equal(requests.length, 2);
  assert.deepEqual(requests.map((r) => r.body.input), [['a', 'bbb'], ['cc']]);
  assert.equal(requests[0]?.auth, 'Bearer sk-test');
  assert.equal(requests[0]?.body.model, 'test-model');
  assert.deepEqual(vectors.map((v) => Math.round((v[0] ?? 0) / (v[1] ?? 1))), [1, 3, 2]);
  for (const v of vectors) assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5);
  assert.equal(embedder.id, `endpoint:${url}:test-model`);
});

test('an endpoint failure is an EmbeddingError naming the endpoint and its answer', async () => {
  await assert.rejects(createEndpointEmbedder({ url, model: 'broken' }).embed(['x']), (error: unknown) => error instanceof EmbeddingError && /answered 500: model crashed/.test(error.message));
  await assert.rejects(createEndpointEmbedder({ url: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 2000 }).embed(['x']), EmbeddingError);
});
