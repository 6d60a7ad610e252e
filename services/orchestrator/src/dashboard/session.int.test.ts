/**
 * The browser session: the key given once to `POST /ui/session` becomes a cookie that `/v1` and
 * Bull Board accept, which never holds the key, and which cannot change state from another site.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestStack, TEST_API_KEY, type TestStack } from '../testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'dashboard-session', inProcessWorkers: false });
});
after(() => stack.close());

const openSession = (key: string) => fetch(`${stack.api.url}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });

async function sessionCookie(): Promise<string> {
  const res = await openSession(TEST_API_KEY);
  assert.equal(res.status, 204);
  const [pair] = (res.headers.get('set-cookie') ?? '').split(';');
  assert.ok(pair);
  return pair;
}

test('the key opens a session cookie that is HttpOnly, SameSite=Strict, lasts the browser session and does not hold the key', async () => {
  const res = await openSession(TEST_API_KEY);
  assert.equal(res.status, 204);
  const cookie = res.headers.get('set-cookie') ?? '';
  const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
  assert.match(pair ?? '', /^sy_session=[\w-]{20,}$/);
  assert.ok(attributes.includes('HttpOnly'), cookie);
  assert.ok(attributes.includes('SameSite=Strict'), cookie);
  assert.ok(attributes.includes('Path=/'), cookie);
  assert.ok(!attributes.some((a) => /^(max-age|expires)=/i.test(a)), `no lifetime of its own: ${cookie}`);
  assert.ok(!cookie.includes(TEST_API_KEY), 'the key is not in the cookie');
});

test('a wrong key opens no session: 401 in the one error shape and no cookie', async () => {
  const res = await openSession(`${TEST_API_KEY}x`);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('set-cookie'), null);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
});

test('the cookie opens /v1 as the key does, and nothing of the runs is served without one', async () => {
  const cookie = await sessionCookie();
  const started = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a session test' }) });
  const withCookie = await fetch(`${stack.api.url}/v1/runs/${started.body.run_id}`, { headers: { cookie } });
  assert.equal(withCookie.status, 200);
  assert.equal(((await withCookie.json()) as { run_id: string }).run_id, started.body.run_id);
  for (const headers of [{}, { cookie: 'sy_session=forged' }, { cookie: `sy_session=${TEST_API_KEY}` }] as Record<string, string>[]) {
    const res = await fetch(`${stack.api.url}/v1/runs`, { headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    await res.arrayBuffer();
  }
  const events = await fetch(`${stack.api.url}/v1/runs/${started.body.run_id}/events`);
  assert.equal(events.status, 401);
  await events.arrayBuffer();
});

test('a state change made with the cookie alone is refused from another origin (403) and taken from this one', async () => {
  const cookie = await sessionCookie();
  const started = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a cross-site test' }) });
  const path = `${stack.api.url}/v1/runs/${started.body.run_id}`;
  for (const origin of [undefined, 'http://evil.example', 'null']) {
    const res = await fetch(path, { method: 'DELETE', headers: { cookie, ...(origin ? { origin } : {}) } });
    assert.equal(res.status, 403, `origin ${origin}`);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'cross_origin');
  }
  assert.equal((await stack.json<{ status: string }>(`/v1/runs/${started.body.run_id}`)).body.status, 'queued', 'nothing was cancelled');
  const same = await fetch(path, { method: 'DELETE', headers: { cookie, origin: stack.api.url } });
  assert.equal(same.status, 200);
  assert.equal(((await same.json()) as { status: string }).status, 'cancelled');
});

test('Bull Board at /admin/queues answers only with the key or the cookie', async () => {
  for (const headers of [{}, { cookie: 'sy_session=forged' }, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${stack.api.url}${path}`, { headers });
      assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      await res.arrayBuffer();
    }
  }
  const cookie = await sessionCookie();
  const page = await fetch(`${stack.api.url}/admin/queues`, { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  await page.arrayBuffer();
  const api = await fetch(`${stack.api.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
  assert.equal(api.status, 200);
  const names = ((await api.json()) as { queues: { name: string }[] }).queues.map((q) => q.name).sort();
  assert.deepEqual(names, ['agent', 'child-runs', 'kind-aceflow-stage', 'notify-delivery', 'run-dispatch', 'schedule-tick', 'tool-editing', 'tool-outline', 'tool-search', 'tool-writing', 'waits']);
});

test('ending the session clears the cookie', async () => {
  const res = await fetch(`${stack.api.url}/ui/session`, { method: 'DELETE' });
  assert.equal(res.status, 204);
  assert.match(res.headers.get('set-cookie') ?? '', /^sy_session=; Max-Age=0/);
});
