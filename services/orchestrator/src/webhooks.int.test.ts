/**
 * Webhooks on a run's or batch's end, against a whole stack and real HTTP receivers on loopback:
 * signed deliveries a receiver verifies, retries until a failing receiver accepts (once), hosts
 * refused at submission, a listed name that resolves to an unlisted loopback address refused at
 * delivery, a batch told once, and receivers that hang or answer too much bounded per attempt.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { notifyJobId, parseAllowList, QUEUES, RunStore, verifyWebhookSignature } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { ResponseChecker } from './testing/openapi-check.js';
import { registerPipeline } from './testing/pipelines.js';
import { startTestStack, waitFor, type TestStack } from './testing/stack.js';

const SECRET = 'webhook-secret-for-tests';

interface Delivery { body: string; headers: http.IncomingHttpHeaders; status: number; receivedAt: number; path?: string | undefined }

/** A receiver on loopback: answers each request with the next status of `script` (then the last), or by `handle`. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly server: http.Server;
  script: number[] = [200];
  handle: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  constructor() {
    this.server = http.createServer((req, res) => {
      if (this.handle) return this.handle(req, res);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const status = this.script[Math.min(this.deliveries.length, this.script.length - 1)] ?? 200;
        this.deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, status, receivedAt: Date.now(), path: req.url });
        res.writeHead(status).end('ok');
      });
    });
  }
  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }
  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  get accepted(): Delivery[] {
    return this.deliveries.filter((d) => d.status >= 200 && d.status < 300);
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let stack: TestStack;
let queue: Queue;
let redis: ReturnType<typeof createRedisClient>;
const receivers = { signed: new Receiver(), flaky: new Receiver(), byName: new Receiver(), batch: new Receiver(), slow: new Receiver(), chatty: new Receiver(), redirecting: new Receiver() };

before(async () => {
  await Promise.all(Object.values(receivers).map((r) => r.listen()));
  const allow = [receivers.signed, receivers.flaky, receivers.batch, receivers.slow, receivers.chatty, receivers.redirecting].map((r) => `127.0.0.1:${r.port}`).join(',') + `,localhost:${receivers.byName.port}`;
  stack = await startTestStack({ label: 'webhooks', webhooks: { allow: parseAllowList(allow), secret: SECRET, timeoutMs: 800, responseMaxBytes: 4096 } });
  redis = createRedisClient(stack.redisUrl);
  queue = new Queue(QUEUES.notifyDelivery, { connection: redis, prefix: stack.prefix });
  await registerPipeline(stack, { name: 'hooked', input: { type: 'object', required: ['topic'] }, steps: { find: { tool: 'search_relevant_information', args: { topic: 'input.topic' } } } });
});
after(async () => {
  await queue.close();
  await redis.quit();
  await stack.close();
  await Promise.all(Object.values(receivers).map((r) => r.close()));
});

const startRun = (notifyUrl: string, topic = 'the tide') => stack.json<{ run_id: string; error?: { code: string; details: { problems: { path: string }[] } } }>(`/v1/pipelines/hooked/runs?notify_url=${encodeURIComponent(notifyUrl)}`, { method: 'POST', body: JSON.stringify({ topic }) });
const jobOf = (target: string) => queue.getJob(notifyJobId(target));

test('a run with notify_url is told its end once, signed: the receiver verifies the signature over the raw body', async () => {
  const { status, body } = await startRun(receivers.signed.url());
  assert.equal(status, 202);
  await stack.waitForRun(body.run_id);
  const [delivery] = (await waitFor(async () => receivers.signed.deliveries, (d) => d.length >= 1, 'the webhook arrives')) as Delivery[];
  assert.ok(delivery);
  const ended = Date.parse(String((await stack.json<{ updated_at: string }>(`/v1/runs/${body.run_id}`)).body.updated_at));
  console.log(`webhook received ${delivery.receivedAt - ended} ms after the run ended`);
  assert.equal(verifyWebhookSignature({ secret: SECRET, body: delivery.body, header: delivery.headers['switchyard-signature'] as string }), true, 'the signature verifies');
  assert.equal(verifyWebhookSignature({ secret: 'another-secret-entirely', body: delivery.body, header: delivery.headers['switchyard-signature'] as string }), false, 'and not with another secret');
  assert.equal(verifyWebhookSignature({ secret: SECRET, body: `${delivery.body} `, header: delivery.headers['switchyard-signature'] as string }), false, 'nor over another body');
  const summary = JSON.parse(delivery.body) as Record<string, unknown>;
  assert.equal(summary.type, 'run');
  assert.equal(summary.run_id, body.run_id);
  assert.equal(summary.status, 'completed');
  assert.deepEqual(summary.pipeline, { name: 'hooked', version: 1 });
  assert.ok(summary.result !== undefined && summary.created_at && summary.ended_at);
  assert.equal(delivery.headers['switchyard-delivery'], notifyJobId(`run:${body.run_id}`));
  assert.equal(delivery.headers['idempotency-key'], notifyJobId(`run:${body.run_id}`), 'the same key on every attempt, for a receiver to act once');
  await waitFor(async () => (await jobOf(`run:${body.run_id}`))?.finishedOn, Boolean, 'the delivery job completed');
  assert.equal(receivers.signed.deliveries.length, 1);
});

test('a receiver failing twice then accepting gets exactly one accepted delivery, on the third attempt', async () => {
  receivers.flaky.script = [500, 503, 200];
  const { body } = await startRun(receivers.flaky.url());
  const job = await waitFor(() => jobOf(`run:${body.run_id}`), (j) => Boolean(j?.finishedOn), 'the delivery job completed', 30_000);
  console.log(`flaky receiver: attempts ${receivers.flaky.deliveries.map((d) => d.status).join(', ')}; job attemptsMade ${job?.attemptsMade}`);
  assert.deepEqual(receivers.flaky.deliveries.map((d) => d.status), [500, 503, 200]);
  assert.equal(receivers.flaky.accepted.length, 1);
  assert.deepEqual(receivers.flaky.deliveries.map((d) => d.headers['switchyard-attempt']), ['1', '2', '3']);
  assert.equal(new Set(receivers.flaky.deliveries.map((d) => JSON.parse(d.body).run_id as string)).size, 1);
});

test('a notify_url whose host is not in WEBHOOK_ALLOW is refused at submission with 400 naming notify.url, and no run is made', async () => {
  const before = (await stack.json<{ runs: unknown[] }>('/v1/runs?pipeline=hooked&limit=200')).body.runs.length;
  for (const url of ['http://hooks.example.com/x', `http://127.0.0.1:${receivers.signed.port + 1}/x`, `http://127.0.0.2:${receivers.signed.port}/x`, 'file:///etc/passwd', `http://user:pw@127.0.0.1:${receivers.signed.port}/`, 'not a url', `http://127.0.0.1:${receivers.signed.port}/${'x'.repeat(3000)}`]) {
    const { status, body } = await startRun(url);
    assert.equal(status, 400, url);
    assert.ok(['invalid_notify', 'invalid_parameters'].includes(body.error?.code ?? ''), url);
  }
  const refused = await startRun('http://hooks.example.com/x');
  assert.equal(refused.body.error?.code, 'invalid_notify');
  assert.deepEqual(refused.body.error?.details.problems.map((p) => p.path), ['notify.url']);
  const batch = await stack.json<{ error: { code: string } }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'hooked', items: [{ topic: 'a' }], notify: { url: 'http://hooks.example.com/x' } }) });
  assert.equal(batch.status, 400);
  assert.equal(batch.body.error.code, 'invalid_notify');
  assert.equal((await stack.json<{ runs: unknown[] }>('/v1/runs?pipeline=hooked&limit=200')).body.runs.length, before, 'no run was made');
});

test('a host allowed by name that resolves to a loopback address WEBHOOK_ALLOW does not list is refused at delivery, and never reached', async () => {
  const { status, body } = await startRun(`http://localhost:${receivers.byName.port}/hook`);
  assert.equal(status, 202, 'the name is listed: accepted at submission');
  await stack.waitForRun(body.run_id);
  const job = await waitFor(() => jobOf(`run:${body.run_id}`), (j) => Boolean(j?.failedReason), 'the delivery is refused', 20_000);
  assert.match(job?.failedReason ?? '', /resolves to (127\.0\.0\.1|::1), an internal address WEBHOOK_ALLOW does not list/);
  assert.equal(job?.attemptsMade, 1, 'a refused destination is not retried');
  assert.equal(receivers.byName.deliveries.length, 0);
});

test("a batch's notify fires once, when its last run has ended, with its counts", async () => {
  const { status, body } = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'hooked', items: [{ topic: 'a' }, { topic: 'b' }, { topic: 'c' }], notify: { url: receivers.batch.url() } }) });
  assert.equal(status, 202);
  await waitFor(async () => (await stack.json<{ status: string }>(`/v1/batches/${body.batch_id}`)).body.status, (s) => s === 'done', 'the batch is done', 30_000);
  await waitFor(() => jobOf(`batch:${body.batch_id}`), (j) => Boolean(j?.finishedOn), 'the batch delivery completed');
  assert.equal(receivers.batch.deliveries.length, 1);
  const summary = JSON.parse(receivers.batch.deliveries[0]?.body ?? '{}') as { type: string; batch_id: string; total: number; counts: Record<string, number> };
  assert.deepEqual({ type: summary.type, batch_id: summary.batch_id, total: summary.total, completed: summary.counts.completed }, { type: 'batch', batch_id: body.batch_id, total: 3, completed: 3 });
  assert.equal((await queue.getJobs(['completed', 'failed', 'wait', 'active', 'delayed'])).filter((j) => j.data.target === `batch:${body.batch_id}` || j.data.url === receivers.batch.url()).length, 1, 'one delivery job, none for its runs');
});

test('a receiver that never answers fails each attempt at WEBHOOK_TIMEOUT_MS while other webhooks are delivered; one that answers megabytes is read only to its bound', async () => {
  let hung = 0;
  receivers.slow.handle = () => void (hung += 1); // never answers
  receivers.chatty.handle = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const more = () => {
      while (sent < 50 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      if (sent < 50 * 1024 * 1024) res.once('drain', more);
      else res.end();
    };
    res.on('close', () => (receivers.chatty.deliveries.push({ body: '', headers: {}, status: sent, receivedAt: Date.now() }), undefined));
    more();
  };
  const slow = await startRun(receivers.slow.url());
  await waitFor(async () => hung, (n) => n >= 2, 'the hanging receiver was tried twice', 20_000);
  const slowJob = await jobOf(`run:${slow.body.run_id}`);
  assert.match(slowJob?.failedReason ?? '', /abort|timeout/i, 'an attempt ends at its timeout');
  const signedBefore = receivers.signed.deliveries.length;
  const meanwhile = await startRun(receivers.signed.url());
  await waitFor(async () => receivers.signed.deliveries.length, (n) => n > signedBefore, 'another webhook is delivered meanwhile', 15_000);
  const chatty = await startRun(receivers.chatty.url());
  const chattyJob = await waitFor(() => jobOf(`run:${chatty.body.run_id}`), (j) => Boolean(j?.finishedOn), 'the chatty delivery completed', 15_000);
  assert.equal(chattyJob?.returnvalue?.delivered, true);
  const sent = await waitFor(async () => receivers.chatty.deliveries[0]?.status ?? -1, (n) => n >= 0, 'the chatty receiver saw the connection close');
  assert.ok(sent < 50 * 1024 * 1024, `the answer was not read to its end (${sent} bytes written before the close)`);
  assert.ok(meanwhile.body.run_id);
});

test('an end recorded by a process that died before enqueueing its webhook is delivered by the sweep: the run, cancelled, is told once', async (t) => {
  // The run must still be going when the test ends it: its one step is slowed.
  stack.tools.services.search.faults.latencyMs = 5000;
  t.after(() => (stack.tools.services.search.faults.latencyMs = 0));
  const { body } = await stack.json<{ run_id: string }>(`/v1/pipelines/hooked/runs?notify_url=${encodeURIComponent(receivers.signed.url('/cancelled'))}`, { method: 'POST', body: JSON.stringify({ topic: 'never finished' }) });
  // A store with no hook stands for a process that ended the run and died before its flush.
  const bare = new RunStore({ redis, prefix: stack.prefix });
  const moved = await bare.transition({ runId: body.run_id, from: ['queued', 'running', 'waiting'], to: 'cancelled' });
  if (!moved.moved) return assert.fail('the run had ended before it could be cancelled: the test proves nothing');
  assert.equal(await redis.zscore(bare.keys.notifyPending, `run:${body.run_id}`) !== null, true, 'the end is owed in Redis');
  await waitFor(() => jobOf(`run:${body.run_id}`), (j) => Boolean(j?.finishedOn), 'the sweep delivered it', 20_000);
  const told = receivers.signed.deliveries.filter((d) => (JSON.parse(d.body) as { run_id: string }).run_id === body.run_id);
  assert.equal(told.length, 1);
  assert.equal((JSON.parse(told[0]?.body ?? '{}') as { status: string }).status, 'cancelled');
  assert.equal(await redis.zscore(bare.keys.notifyPending, `run:${body.run_id}`), null, 'no longer owed');
});

test('a story, a run and a batch with notify answer as the OpenAPI document says, a refused notify_url a documented 400', async () => {
  const checker = new ResponseChecker(await (await fetch(`${stack.api.url}/openapi.json`)).json());
  const post = (value: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(value) });
  const hook = encodeURIComponent(receivers.signed.url('/documented'));
  const story = (await checker.check({ method: 'post', path: '/v1/stories' }, await stack.request(`/v1/stories?notify_url=${hook}`, post({ topic: 'a documented story' })), 202)) as { run_id: string };
  await checker.check({ method: 'post', path: '/v1/stories' }, await stack.request('/v1/stories?notify_url=http%3A%2F%2Fhooks.example.com%2F', post({ topic: 'refused' })), 400);
  await checker.check({ method: 'post', path: '/v1/pipelines/{name}/runs' }, await stack.request(`/v1/pipelines/hooked/runs?notify_url=${hook}`, post({ topic: 'documented' })), 202);
  await checker.check({ method: 'post', path: '/v1/pipelines/{name}/runs' }, await stack.request('/v1/pipelines/hooked/runs?notify_url=http%3A%2F%2Fhooks.example.com%2F', post({ topic: 'refused' })), 400);
  await checker.check({ method: 'post', path: '/v1/batches' }, await stack.request('/v1/batches', post({ items: [{ topic: 'a documented batch' }], notify: { url: receivers.signed.url('/documented') } })), 202);
  await checker.check({ method: 'post', path: '/v1/batches' }, await stack.request('/v1/batches', post({ items: [{ topic: 'refused' }], notify: { url: 'http://hooks.example.com/' } })), 400);
  await stack.waitForRun(story.run_id);
  await waitFor(() => jobOf(`run:${story.run_id}`), (j) => Boolean(j?.finishedOn), "the story's webhook is delivered");
});

test('a redirect is not followed: the 302 fails the attempt and the place it points to is never asked', async () => {
  receivers.redirecting.script = [302];
  receivers.redirecting.handle = (req, res) => {
    req.resume();
    req.on('end', () => {
      receivers.redirecting.deliveries.push({ body: '', headers: req.headers, status: 302, receivedAt: Date.now() });
      res.writeHead(302, { location: receivers.signed.url('/redirected') }).end();
    });
  };
  const { body } = await startRun(receivers.redirecting.url());
  await waitFor(async () => receivers.redirecting.deliveries.length, (n) => n >= 2, 'the redirecting receiver was tried twice', 20_000);
  const job = await jobOf(`run:${body.run_id}`);
  assert.match(job?.failedReason ?? '', /answered 302/);
  // Counted by its path: the signed receiver also takes other tests' deliveries, some of them late.
  assert.equal(receivers.signed.deliveries.filter((d) => d.path === '/redirected').length, 0, 'the redirect target was never asked');
});
