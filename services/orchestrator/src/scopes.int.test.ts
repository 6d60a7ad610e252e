/**
 * Scopes of API keys against every route: the test walks each operation of the OpenAPI document,
 * reads the scope it says the operation needs, checks it is the route table's, and sends a
 * request with a key of each scope, the key that lacks it being refused (403
 * `insufficient_scope`, naming the scope, as documented, writing nothing) and the key that holds
 * it let through. Then the browser session carries its key's scopes, and Bull Board's writes need
 * `admin`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { apiKeyList, type Scope } from '@switchyard/config';
import { createRedisClient } from '@switchyard/redis';
import { routeAccess } from './route-scopes.js';
import { ResponseChecker } from './testing/openapi-check.js';
import { KeyWatch, readError } from './testing/rejections.js';
import { startTestStack, TEST_API_KEY, type TestStack } from './testing/stack.js';

/** One key per scope, as API_KEYS names them: `read` alone, `run` (read implied), `admin` (read implied). */
const KEYS: Record<Scope, string> = { read: 'reader-key-0123', run: 'runner-key-0123', admin: 'admin-key-0123' };
const API_KEYS = `${TEST_API_KEY},${KEYS.read}:read,${KEYS.run}:run,${KEYS.admin}:admin`;
const HELD: Record<Scope, Scope[]> = { read: ['read'], run: ['read', 'run'], admin: ['read', 'admin'] };

interface Operation {
  security?: Record<string, string[]>[];
}
let stack: TestStack;
let watch: KeyWatch;
let document: { paths: Record<string, Record<string, Operation>> };
let checker: ResponseChecker;

before(async () => {
  stack = await startTestStack({ label: 'scopes', inProcessWorkers: false, apiKeys: apiKeyList.parse(API_KEYS) });
  watch = new KeyWatch(stack);
  document = (await (await fetch(`${stack.api.url}/openapi.json`)).json()) as typeof document;
  checker = new ResponseChecker(document);
  await watch.settled();
});
after(async () => {
  await watch.close();
  await stack.close();
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const PARAMS: Record<string, string> = { runId: `run_${'0'.repeat(32)}`, batchId: `batch_${'0'.repeat(32)}`, name: 'no-such-pipeline' };
const operations = () => Object.entries(document.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ method, path, operation: item[method] as Operation })));

/** A request to the operation that does nothing when let through: unknown ids, an empty body. */
function send(op: { method: string; path: string }, headers: Record<string, string>): Promise<Response> {
  const url = `${stack.api.url}${op.path.replace(/\{(\w+)\}/g, (_m, name: string) => PARAMS[name] ?? name)}`;
  const body = ['post', 'put'].includes(op.method) ? '{}' : undefined;
  return fetch(url, { method: op.method.toUpperCase(), headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body });
}

async function drain(res: Response): Promise<void> {
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) await res.body?.cancel();
  else await res.arrayBuffer();
}

test('every operation of the document states the scope the route table gives it', () => {
  const seen = operations();
  assert.ok(seen.length >= 20, `found ${seen.length}`);
  for (const { method, path, operation } of seen) {
    const scopes = new Set((operation.security ?? [{}]).flatMap((requirement) => Object.values(requirement).flat()));
    const stated = operation.security?.length === 0 ? 'public' : [...scopes].join('+');
    assert.equal(stated, routeAccess(method, path), `${method} ${path}`);
  }
});

test('a key lacking an operation\'s scope is refused 403 insufficient_scope naming it, as documented, writing nothing; a key holding it is let through', async () => {
  let refusals = 0;
  for (const { method, path } of operations()) {
    const access = routeAccess(method, path);
    if (access === undefined || access === 'public') continue;
    for (const [kind, key] of Object.entries(KEYS) as [Scope, string][]) {
      const label = `${method} ${path} with a ${kind} key`;
      if (HELD[kind].includes(access)) {
        const res = await send({ method, path }, { authorization: `Bearer ${key}` });
        assert.ok(![401, 403].includes(res.status), `${label} is let through, got ${res.status}`);
        await drain(res);
        continue;
      }
      const reply = await watch.refused(() => send({ method, path }, { authorization: `Bearer ${key}` }).then(async (res) => {
        await checker.check({ method, path }, res.clone(), 403);
        return res;
      }));
      refusals += 1;
      assert.equal(reply.error.code, 'insufficient_scope', label);
      assert.match(reply.error.message, new RegExp(`needs the '${access}' scope`), label);
      assert.deepEqual(reply.error.details, { required_scope: access, scopes: HELD[kind] }, label);
    }
  }
  // Seven run operations (five starts and cancels, an approval, a signal) refused to read and admin
  // keys, seven admin operations (register, delete a pipeline, delete a version; put, pause, resume
  // and delete a schedule) to read and run keys.
  assert.equal(refusals, 28);
});

test('public operations need no key at all', async () => {
  for (const { method, path } of operations().filter((o) => routeAccess(o.method, o.path) === 'public')) {
    const res = await send({ method, path }, {});
    assert.ok(![401, 403].includes(res.status), `${method} ${path}: ${res.status}`);
    await drain(res);
  }
});

test('a scope is needed however the path is spelt: upper case and a trailing slash route, and are guarded, alike', async () => {
  for (const path of ['/V1/STORIES', '/v1/stories/']) {
    const { status, error } = await readError(await fetch(`${stack.api.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEYS.read}`, 'content-type': 'application/json' }, body: JSON.stringify({ topic: 'a spelling test' }) }));
    assert.equal(status, 403, path);
    assert.equal(error.code, 'insufficient_scope');
  }
});

async function sessionOf(key: string): Promise<string> {
  const res = await fetch(`${stack.api.url}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  assert.equal(res.status, 204);
  return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

test('a browser session carries its key\'s scopes: a read key\'s session reads but starts nothing', async () => {
  const cookie = await sessionOf(KEYS.read);
  const sameOrigin = { cookie, origin: stack.api.url, 'content-type': 'application/json' };
  const list = await fetch(`${stack.api.url}/v1/runs`, { headers: { cookie } });
  assert.equal(list.status, 200);
  await list.arrayBuffer();
  const { status, error } = await watch.refused(() => fetch(`${stack.api.url}/v1/stories`, { method: 'POST', headers: sameOrigin, body: JSON.stringify({ topic: 'not from a reader' }) }));
  assert.equal(status, 403);
  assert.equal(error.code, 'insufficient_scope');
  const runner = await sessionOf(KEYS.run);
  const started = await fetch(`${stack.api.url}/v1/stories`, { method: 'POST', headers: { ...sameOrigin, cookie: runner }, body: JSON.stringify({ topic: 'from a runner' }) });
  assert.equal(started.status, 202);
  await started.arrayBuffer();
});

test('Bull Board: every key reads it, a write needs admin, and a refused obliterate leaves the queue as it was', async (t) => {
  const redis = createRedisClient(stack.redisUrl);
  const queue = new Queue('tool-search', { connection: redis, prefix: stack.prefix });
  t.after(async () => {
    await queue.close();
    await redis.quit();
  });
  await queue.add('probe', { n: 1 });
  const jobs = await queue.count();
  const board = (path: string, key: string, method = 'GET') => fetch(`${stack.api.url}/admin/queues${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  for (const key of Object.values(KEYS)) {
    for (const path of ['', '/api/queues']) {
      const res = await board(path, key);
      assert.equal(res.status, 200, `${path} ${key}`);
      await res.arrayBuffer();
    }
  }
  for (const key of [KEYS.read, KEYS.run]) {
    for (const write of ['/api/queues/tool-search/obliterate', '/api/queues/tool-search/pause', '/api/queues/tool-search/clean/completed', '/api/queues/tool-search/retry/failed']) {
      const { status, error } = await readError(await board(write, key, 'PUT'));
      assert.equal(status, 403, `${write} ${key}`);
      assert.equal(error.code, 'insufficient_scope');
      assert.deepEqual((error.details as { required_scope: string }).required_scope, 'admin');
    }
  }
  assert.equal(await queue.count(), jobs, 'the jobs are still there');
  assert.equal(await queue.isPaused(), false);
  const paused = await board('/api/queues/tool-search/pause', KEYS.admin, 'PUT');
  assert.equal(paused.status, 200, await paused.clone().text());
  await paused.arrayBuffer();
  assert.equal(await queue.isPaused(), true, 'an admin key pauses it');
  const resumed = await board('/api/queues/tool-search/resume', KEYS.admin, 'PUT');
  assert.equal(resumed.status, 200);
  await resumed.arrayBuffer();
});
