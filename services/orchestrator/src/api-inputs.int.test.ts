/**
 * Bad input to every orchestrator endpoint: a clear 4xx in the one error shape, and nothing
 * written to Redis. No workers run here, so every key under the prefix is one a request made.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KeyWatch } from './testing/rejections.js';
import { startTestStack, type TestStack } from './testing/stack.js';

let stack: TestStack;
let watch: KeyWatch;
before(async () => {
  stack = await startTestStack({ label: 'api-inputs', inProcessWorkers: false });
  watch = new KeyWatch(stack);
  await watch.settled();
});
after(async () => {
  await watch.close();
  await stack.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => () =>
  stack.request(path, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

const HEX = '0123456789abcdef'.repeat(2);
const text = (length: number) => 'a'.repeat(length);

interface BadBody {
  what: string;
  body: unknown;
  /** A pattern the message must match: it names the field at fault. */
  message: RegExp;
  /** Default invalid_parameters. */
  code?: string;
}

const badStories: BadBody[] = [
  { what: 'a missing topic', body: { style: 'concise' }, message: /'topic' is required/ },
  { what: 'a topic that is a number', body: { topic: 42 }, message: /'topic'.*expected string/ },
  { what: 'a topic that is null', body: { topic: null }, message: /'topic'/ },
  { what: 'an empty topic', body: { topic: '' }, message: /'topic'/ },
  { what: 'a topic of blanks only', body: { topic: '   ' }, message: /'topic'/ },
  { what: 'a topic of 501 characters', body: { topic: text(501) }, message: /'topic'.*500/ },
  { what: 'a depth of 0', body: { topic: 'tides', depth: 0 }, message: /'depth'/ },
  { what: 'a depth of 11', body: { topic: 'tides', depth: 11 }, message: /'depth'/ },
  { what: 'a depth of 2.5', body: { topic: 'tides', depth: 2.5 }, message: /'depth'/ },
  { what: 'a depth given as a string', body: { topic: 'tides', depth: '3' }, message: /'depth'.*expected number/ },
  { what: 'eleven focus areas', body: { topic: 'tides', focus_areas: Array.from({ length: 11 }, (_, i) => `area ${i}`) }, message: /'focus_areas'/ },
  { what: 'focus areas given as a string', body: { topic: 'tides', focus_areas: 'pacing' }, message: /'focus_areas'.*expected array/ },
  { what: 'a focus area of 51 characters', body: { topic: 'tides', focus_areas: ['pacing', text(51)] }, message: /'focus_areas\.1'/ },
  { what: 'a style of 51 characters', body: { topic: 'tides', style: text(51) }, message: /'style'/ },
  { what: 'a target audience that is an object', body: { topic: 'tides', target_audience: { age: 9 } }, message: /'target_audience'/ },
  { what: 'an unknown field', body: { topic: 'tides', colour: 'blue' }, message: /colour/ },
  { what: 'a body that is an array', body: [{ topic: 'tides' }], message: /expected object/ },
  { what: 'a body that is not JSON', body: '{"topic": "tides"', message: /not valid JSON/, code: 'invalid_json' },
  { what: 'a body that is a bare JSON string', body: '"tides"', message: /not valid JSON/, code: 'invalid_json' },
];

for (const bad of badStories) {
  test(`POST /v1/stories refuses ${bad.what} with 400, writing nothing`, async () => {
    const { status, error } = await watch.refused(post('/v1/stories', bad.body));
    assert.equal(status, 400);
    assert.equal(error.code, bad.code ?? 'invalid_parameters');
    assert.match(error.message, bad.message);
  });
}

test('a missing topic is listed in the details a program reads', async () => {
  const { error } = await watch.refused(post('/v1/stories', {}));
  assert.deepEqual((error.details as { missing_parameters: string[] }).missing_parameters, ['topic']);
});

const notJson: { what: string; init: RequestInit; status: number; code: string; message: RegExp }[] = [
  { what: 'no body', init: {}, status: 400, code: 'invalid_parameters', message: /JSON request body is required/ },
  { what: 'an empty JSON body', init: { headers: { 'content-type': 'application/json' } }, status: 400, code: 'invalid_parameters', message: /'(topic|items)' is required/ },
  { what: 'a form body', init: { body: 'topic=tides', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, status: 415, code: 'unsupported_media_type', message: /must be JSON/ },
  { what: 'a JSON body sent as text', init: { body: '{"topic":"tides"}', headers: { 'content-type': 'text/plain' } }, status: 415, code: 'unsupported_media_type', message: /Content-Type: application\/json/ },
];

for (const path of ['/v1/stories', '/v1/batches']) {
  for (const bad of notJson) {
    test(`POST ${path} with ${bad.what} says what to send, writing nothing`, async () => {
      const { status, error } = await watch.refused(() => stack.request(path, { method: 'POST', ...bad.init }));
      assert.equal(status, bad.status);
      assert.equal(error.code, bad.code);
      assert.match(error.message, bad.message);
    });
  }
}

test('POST /v1/stories refuses a body over 64 kb with 413, while one just under is read', async () => {
  const over = JSON.stringify({ topic: text(64 * 1024) });
  const refused = await watch.refused(post('/v1/stories', over));
  assert.equal(refused.status, 413);
  assert.equal(refused.error.code, 'payload_too_large');
  assert.match(refused.error.message, /65536 bytes/);
  // Just under the limit the body is parsed, and the topic's own limit answers.
  const under = JSON.stringify({ topic: text(64 * 1024 - 20) });
  const read = await watch.refused(post('/v1/stories', under));
  assert.equal(read.status, 400);
  assert.match(read.error.message, /'topic'/);
});

test('the limits themselves are accepted: a topic of 500 characters, depth 1 and 10, ten focus areas', async () => {
  const focus_areas = Array.from({ length: 10 }, (_, i) => `area ${i}`);
  for (const body of [{ topic: text(500), depth: 1 }, { topic: 'tides', depth: 10, focus_areas }]) {
    const res = await post('/v1/stories', body)();
    assert.equal(res.status, 202, await res.text());
  }
});

const badBatches: BadBody[] = [
  { what: 'missing items', body: { defaults: { topic: 'tides' } }, message: /'items' is required/ },
  { what: 'no items', body: { items: [] }, message: /'items'/ },
  { what: 'items that are not a list', body: { items: { topic: 'tides' } }, message: /'items'.*expected array/ },
  { what: '10,001 items', body: { items: Array.from({ length: 10_001 }, () => ({ topic: 't' })) }, message: /'items'.*10000/ },
  { what: 'an unknown field', body: { items: [{ topic: 'tides' }], priority: 'high' }, message: /priority/ },
  { what: 'an item with an unknown field', body: { items: [{ topic: 'tides', colour: 'blue' }] }, message: /'items\.0'.*colour/ },
  { what: 'an item that is a string', body: { items: ['tides'] }, message: /'items\.0'/ },
  { what: 'an item that lacks a topic when no default gives one', body: { items: [{ topic: 'tides' }, { style: 'concise' }] }, message: /'items\.1\.topic' is required/ },
  { what: 'an item whose depth is out of range over a valid default', body: { items: [{ topic: 'a' }, { topic: 'b' }, { topic: 'c', depth: 11 }], defaults: { depth: 2 } }, message: /'items\.2\.depth'/ },
  { what: 'defaults with a depth of 0', body: { items: [{ topic: 'tides' }], defaults: { depth: 0 } }, message: /'defaults\.depth'/ },
  { what: 'defaults with an unknown field', body: { items: [{ topic: 'tides' }], defaults: { tone: 'dark' } }, message: /'defaults'.*tone/ },
  { what: 'a topic of 501 characters', body: { items: [{ topic: text(501) }] }, message: /'items\.0\.topic'/ },
  { what: 'a body that is not JSON', body: '{"items": [', message: /not valid JSON/, code: 'invalid_json' },
];

for (const bad of badBatches) {
  test(`POST /v1/batches refuses ${bad.what} with 400, writing nothing`, async () => {
    const { status, error } = await watch.refused(post('/v1/batches', bad.body));
    assert.equal(status, 400);
    assert.equal(error.code, bad.code ?? 'invalid_parameters');
    assert.match(error.message, bad.message);
  });
}

test('a batch with one bad item among many is refused whole, and each bad item is named', async () => {
  const items = Array.from({ length: 200 }, (_, i) => (i === 17 || i === 150 ? { depth: 3 } : { topic: `story ${i}` }));
  const { status, error } = await watch.refused(post('/v1/batches', { items }));
  assert.equal(status, 400);
  const issues = (error.details as { issues: { path: string }[] }).issues.map((i) => i.path);
  assert.deepEqual(issues, ['items.17.topic', 'items.150.topic']);
  assert.match(error.message, /'items\.17\.topic' is required \(and 1 more\)/);
});

test('POST /v1/batches refuses a body over 20 mb with 413, writing nothing', async () => {
  const item = JSON.stringify({ topic: text(480) });
  const count = Math.ceil((20 * 1024 * 1024) / item.length) + 10;
  const body = `{"items":[${Array.from({ length: count }, () => item).join(',')}]}`;
  assert.ok(body.length > 20 * 1024 * 1024);
  const { status, error } = await watch.refused(post('/v1/batches', body));
  assert.equal(status, 413);
  assert.equal(error.code, 'payload_too_large');
});

const badIdempotencyKeys: [string, string][] = [
  ['an empty Idempotency-Key', ''],
  ['an Idempotency-Key with a space', 'order 7781'],
  ['an Idempotency-Key of 201 characters', text(201)],
  ['an Idempotency-Key with a non-ASCII character', 'caf\u00e9'],
];

for (const [what, key] of badIdempotencyKeys) {
  for (const [path, body] of [['/v1/stories', { topic: 'tides' }], ['/v1/batches', { items: [{ topic: 'tides' }] }]] as const) {
    test(`POST ${path} refuses ${what} with 400, creating nothing`, async () => {
      const { status, error } = await watch.refused(post(path, body, { 'Idempotency-Key': key }));
      assert.equal(status, 400);
      assert.equal(error.code, 'invalid_idempotency_key');
      assert.match(error.message, /Idempotency-Key/);
    });
  }
}

test('an Idempotency-Key of 200 visible characters is accepted', async () => {
  const res = await post('/v1/stories', { topic: 'tides' }, { 'Idempotency-Key': `k${'~'.repeat(199)}` })();
  assert.equal(res.status, 202, await res.text());
});

const unknownRuns = [`run_${HEX}`, 'nope', `run_${HEX.toUpperCase()}`, `run_${HEX}0`, `batch_${HEX}`, text(2000), '%E0%A4%A'];
const unknownBatches = [`batch_${HEX}`, 'nope', `batch_${HEX.slice(1)}`, `run_${HEX}`, text(2000), '%E0%A4%A'];
const idEndpoints: { method: string; path: (id: string) => string; ids: string[]; code: string }[] = [
  { method: 'GET', path: (id) => `/v1/runs/${id}`, ids: unknownRuns, code: 'run_not_found' },
  { method: 'GET', path: (id) => `/v1/runs/${id}/events`, ids: unknownRuns, code: 'run_not_found' },
  { method: 'DELETE', path: (id) => `/v1/runs/${id}`, ids: unknownRuns, code: 'run_not_found' },
  { method: 'GET', path: (id) => `/v1/batches/${id}`, ids: unknownBatches, code: 'batch_not_found' },
  { method: 'GET', path: (id) => `/v1/batches/${id}/events`, ids: unknownBatches, code: 'batch_not_found' },
];

for (const endpoint of idEndpoints) {
  test(`${endpoint.method} ${endpoint.path(':id')} answers 404 for ids that name nothing, well-formed or not, writing nothing`, async () => {
    for (const id of endpoint.ids) {
      const { status, error } = await watch.refused(() => stack.request(endpoint.path(id), { method: endpoint.method }));
      if (id.includes('%')) {
        assert.equal(status, 400, `${id} cannot be decoded`);
        continue;
      }
      assert.equal(status, 404, id);
      assert.equal(error.code, endpoint.code);
      assert.ok(error.message.includes(id.slice(0, 40)), `the message names ${id.slice(0, 40)}`);
    }
  });
}

test('GET /v1/batches/:id refuses a bad page with 400 naming the parameter, writing nothing', async () => {
  const created = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: [{ topic: 'a' }, { topic: 'b' }] }) });
  assert.equal(created.status, 202);
  const path = `/v1/batches/${created.body.batch_id}`;
  for (const [query, field] of [['limit=0', 'limit'], ['limit=5000', 'limit'], ['limit=1001', 'limit'], ['offset=-1', 'offset'], ['offset=1.5', 'offset'], ['limit=ten', 'limit'], ['limit=1&limit=2', 'limit']] as const) {
    const { status, error } = await watch.refused(() => stack.request(`${path}?${query}`));
    assert.equal(status, 400, query);
    assert.equal(error.code, 'invalid_parameters');
    assert.match(error.message, new RegExp(`'${field}'`), query);
  }
  const edge = await stack.json<{ runs: unknown[] }>(`${path}?offset=1&limit=1000`);
  assert.equal(edge.status, 200);
  assert.equal(edge.body.runs.length, 1);
});

test('GET /v1/runs refuses a bad page or status with 400, writing nothing', async () => {
  for (const [query, field] of [['limit=0', 'limit'], ['limit=201', 'limit'], ['offset=-1', 'offset'], ['status=sleeping', 'status']] as const) {
    const { status, error } = await watch.refused(() => stack.request(`/v1/runs?${query}`));
    assert.equal(status, 400, query);
    assert.match(error.message, new RegExp(`'${field}'`), query);
  }
});

test('an unknown route answers 404 in the same error shape', async () => {
  for (const [method, path] of [['GET', '/v1/story'], ['POST', '/v1/runs/run_x/retry'], ['GET', '/v2/runs']] as const) {
    const { status, error } = await watch.refused(() => stack.request(path, { method }));
    assert.equal(status, 404, `${method} ${path}`);
    assert.equal(error.code, 'not_found');
  }
});

test('a known route asked with another method answers 405, naming the methods it takes', async () => {
  const cases = [
    ['PUT', `/v1/runs/run_${HEX}`, 'GET, DELETE'],
    ['PATCH', '/v1/batches', 'GET, POST'],
    ['GET', '/v1/stories', 'POST'],
    ['DELETE', `/v1/batches/batch_${HEX}/events`, 'GET'],
    ['POST', '/health', 'GET'],
    ['POST', '/metrics', 'GET'],
  ] as const;
  for (const [method, path, allow] of cases) {
    const res = await stack.request(path, { method });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get('allow'), allow);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'method_not_allowed');
  }
  const { status } = await watch.refused(() => stack.request('/v1/batches', { method: 'PATCH' }));
  assert.equal(status, 405);
});
