/**
 * Runs that wait for people and the world: an agent's tool call waiting for approval (approved,
 * approved with edited arguments, refused), a wait step's signal (before the step, after it,
 * twice, with a bad payload), timeouts, cancelling while waiting, and two hundred runs waiting at
 * once holding no worker.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { WAITS_QUEUE } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from '@switchyard/models/testing';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { finishedRun, registerPipeline, startRun, stageOf } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor } from '../../services/orchestrator/src/testing/worker-processes.js';

let model: ScriptedModel;
let ledger: LedgerService;
let stack: TestStack;
const idOf = (request: ScriptedRequest) => /id:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'none';

before(async () => {
  model = await startScriptedModel({
    script: (request) => {
      const result = request.messages.find((m) => m.role === 'tool');
      if (result) return { content: `told: ${String(result.content)}` };
      return { content: 'I will note it.', toolCalls: [{ name: 'note_fact', arguments: JSON.stringify({ key: `${idOf(request)}/asked` }) }] };
    },
  });
  ledger = await startLedgerService();
  const models = new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted' }]]) });
  stack = await startTestStack({ label: 'waits', toolEnv: ledger.toolEnv, agents: { models } });
  await registerPipeline(stack, {
    name: 'careful-agent',
    input: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    steps: { act: { agent: { prompt: "'id:' & input.id", tools: [{ tool: 'note_fact', approval: 'required' }] } } },
    output: 'steps.act',
  });
  await registerPipeline(stack, {
    name: 'review-gate',
    input: { type: 'object', properties: { slow: { type: 'boolean' } } },
    steps: {
      draft: { tool: 'search_relevant_information', args: { topic: "'gates'" } },
      review: { needs: ['draft'], wait: { signal: 'review', schema: { type: 'object', required: ['verdict'], properties: { verdict: { enum: ['accept', 'reject'] }, note: { type: 'string' } } } } },
    },
    output: 'steps.review',
  });
});
after(async () => {
  await stack.close();
  await ledger.close();
  await model.close();
});

interface InboxBody {
  items: { run_id: string; kind: string; key: string; tool?: string; arguments?: Record<string, unknown>; reason?: string | null; schema: Record<string, unknown> | null; answer_url: string }[];
  total: number;
}
const inboxOf = async (runId: string) => (await stack.json<InboxBody>('/v1/inbox')).body.items.filter((item) => item.run_id === runId);
const statusOf = async (runId: string) => (await stack.json<{ status: string }>(`/v1/runs/${runId}`)).body.status;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => stack.json<{ status?: string; error?: { code: string; message: string } }>(path, { method: 'POST', body: JSON.stringify(body), headers });

test('an agent call that needs approval waits in the inbox with its arguments and reason, and runs with the arguments a person edited', async () => {
  const runId = await startRun(stack, 'careful-agent', { id: 'edit1' });
  const [item] = await waitFor(() => inboxOf(runId), (items) => items.length === 1, 'the call waits in the inbox');
  assert.equal(await statusOf(runId), 'waiting');
  assert.equal(item?.kind, 'approval');
  assert.equal(item?.tool, 'note_fact');
  assert.deepEqual(item?.arguments, { key: 'edit1/asked' }, 'the arguments are the object an approval takes');
  assert.deepEqual((await stack.json<{ arguments?: unknown }>(item?.answer_url ?? '')).body.arguments, { key: 'edit1/asked' }, 'its own URL gives them the same');
  assert.equal(item?.reason, 'I will note it.');
  assert.equal(item?.schema?.type, 'object', 'the form of the answer is the tool schema');
  assert.equal(ledger.calls.filter((c) => c.key.startsWith('edit1/')).length, 0, 'nothing was called before the approval');

  const bad = await post(item?.answer_url ?? '', { approve: true, arguments: { key: 5 } });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error?.message ?? '', /key must be string/);
  // One shape for every refusal: details.problems [{path, message}], an additional property named.
  const problemsOf = (body: unknown) => ((body as { error?: { details?: { problems?: { path: string; message: string }[] } } }).error?.details?.problems ?? []);
  const extra = await post(item?.answer_url ?? '', { approve: true, arguments: { key: 'edit1/x', colour: 'red' } });
  assert.equal(extra.status, 400);
  assert.match(extra.body.error?.message ?? '', /additional properties \(colour\)/);
  assert.deepEqual(problemsOf(extra.body).map((p) => p.path), ['arguments']);
  const longNote = await post(item?.answer_url ?? '', { approve: false, note: 'n'.repeat(100_000) });
  assert.equal(longNote.status, 400);
  assert.deepEqual(problemsOf(longNote.body).map((p) => p.path), ['note'], JSON.stringify(longNote.body));
  const ok = await post(item?.answer_url ?? '', { approve: true, arguments: { key: 'edit1/edited' } });
  assert.equal(ok.status, 202);
  const again = await post(item?.answer_url ?? '', { approve: false });
  assert.equal(again.status, 409);
  const run = await finishedRun(stack, runId, 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.match(String(run.result), /^told: .*edit1\/edited/);
  assert.deepEqual(ledger.calls.filter((c) => c.key.startsWith('edit1/')).map((c) => c.key), ['edit1/edited']);
  assert.deepEqual(await inboxOf(runId), []);
});

test('a refusal reaches the model as the call result, with its note, and nothing is called', async () => {
  const runId = await startRun(stack, 'careful-agent', { id: 'refuse1' });
  const [item] = await waitFor(() => inboxOf(runId), (items) => items.length === 1, 'the call waits');
  assert.equal((await post(item?.answer_url ?? '', { approve: false, note: 'not on a Friday' })).status, 202);
  const run = await finishedRun(stack, runId, 30_000);
  assert.equal(run.status, 'completed');
  assert.match(String(run.result), /refused: a person did not approve this call: not on a Friday/);
  assert.equal(ledger.calls.filter((c) => c.key.startsWith('refuse1/')).length, 0);
  const agent = (stageOf(run, 'act') as unknown as { agent: { messages: { role: string; is_error?: boolean }[] } }).agent;
  assert.ok(agent.messages.some((m) => m.role === 'tool' && m.is_error));
});

test('a signal sent after the run reaches its wait completes it; a bad payload is refused naming the field, and a second is a duplicate', async () => {
  const runId = await startRun(stack, 'review-gate', {});
  const [item] = await waitFor(() => inboxOf(runId), (items) => items.length === 1, 'the wait is in the inbox');
  assert.equal(item?.kind, 'signal');
  assert.equal(item?.answer_url, `/v1/runs/${runId}/signals/review`);
  assert.deepEqual(item?.schema?.required, ['verdict']);
  assert.equal(await statusOf(runId), 'waiting');
  const bad = await post(item.answer_url, { verdict: 'maybe' });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error?.message ?? '', /verdict/);
  const first = await post(item.answer_url, { verdict: 'accept', note: 'fine' }, { 'idempotency-key': 'k1' });
  assert.equal(first.status, 202);
  const second = await post(item.answer_url, { verdict: 'reject' }, { 'idempotency-key': 'k2' });
  assert.equal(second.status, 200);
  assert.equal(second.body.status, 'duplicate');
  const run = await finishedRun(stack, runId, 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual(run.result, { verdict: 'accept', note: 'fine' });
  assert.equal((await post(item.answer_url, { verdict: 'accept' })).status, 409, 'a run that ended takes no signal');
});

test('a signal sent before the run reaches its wait is kept and used when it does', async () => {
  stack.tools.services.search.faults.latencyMs = 1000;
  try {
    const runId = await startRun(stack, 'review-gate', {});
    assert.equal((await post(`/v1/runs/${runId}/signals/review`, { verdict: 'reject' })).status, 202);
    const run = await finishedRun(stack, runId, 30_000);
    assert.equal(run.status, 'completed');
    assert.deepEqual(run.result, { verdict: 'reject' });
  } finally {
    stack.tools.services.search.faults.latencyMs = 0;
  }
});

test('a wait past its timeout fails the step, or gives null with on_timeout: continue', async () => {
  for (const [name, onTimeout] of [['gate-fail', 'fail'], ['gate-continue', 'continue']] as const) {
    await registerPipeline(stack, { name, steps: { gate: { wait: { signal: 'go', timeout: '1s', on_timeout: onTimeout } } }, output: '{ "gate": steps.gate }' });
  }
  const [failed, continued] = await Promise.all(['gate-fail', 'gate-continue'].map(async (name) => finishedRun(stack, await startRun(stack, name, {}), 30_000)));
  assert.equal(failed?.status, 'failed');
  assert.equal(failed?.error?.code, 'wait_timed_out');
  assert.equal(continued?.status, 'completed');
  assert.deepEqual(continued?.result, { gate: null });
});

test('a waiting run is cancelled at once: it leaves the inbox and its waiting job ends', async () => {
  const runId = await startRun(stack, 'review-gate', {});
  await waitFor(() => inboxOf(runId), (items) => items.length === 1, 'the run waits');
  const cancelled = await stack.json<{ status: string }>(`/v1/runs/${runId}`, { method: 'DELETE' });
  assert.equal(cancelled.body.status, 'cancelled');
  assert.deepEqual(await inboxOf(runId), []);
  const connection = createRedisClient(stack.redisUrl);
  const waits = new Queue(WAITS_QUEUE, { connection, prefix: stack.prefix });
  try {
    await waitFor(() => waits.getDelayedCount(), (count) => count === 0, 'no job waits any more');
  } finally {
    await waits.close();
    await connection.quit();
  }
});

test('two hundred runs waiting at once hold no worker, and a story batch meanwhile runs at full speed', async () => {
  const connection = createRedisClient(stack.redisUrl);
  const memory = async () => Number(/used_memory:(\d+)/.exec(await connection.info('memory'))?.[1] ?? 0);
  const timeStories = async () => {
    const started = performance.now();
    const { body } = await stack.json<{ run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ items: Array.from({ length: 5 }, (_, i) => ({ topic: `a gate keeper ${i}` })) }) });
    await Promise.all(body.run_ids.map((id) => finishedRun(stack, id, 60_000)));
    return performance.now() - started;
  };
  try {
    const idle = await timeStories();
    const before = await memory();
    const runIds = await Promise.all(Array.from({ length: 200 }, () => startRun(stack, 'review-gate', {})));
    await waitFor(async () => (await stack.json<InboxBody>('/v1/inbox?limit=1')).body.total, (total) => total >= 200, '200 runs wait', 60_000);
    const perRun = ((await memory()) - before) / 200;
    const waiting = new Queue(WAITS_QUEUE, { connection, prefix: stack.prefix });
    const active = await waiting.getActiveCount();
    await waiting.close();
    const busy = await timeStories();
    console.log(`# 200 waiting runs: ${Math.round(perRun)} bytes of Redis each (run, stages, events, wait record, inbox, delayed job); ${active} jobs active; 5 stories took ${Math.round(idle)} ms before and ${Math.round(busy)} ms while they waited`);
    assert.equal(active, 0, 'no waiting run holds a worker');
    assert.ok(busy < Math.max(3 * idle, idle + 3000), `stories ran at full speed (${Math.round(busy)} ms against ${Math.round(idle)} ms)`);
    assert.ok(perRun < 20_000, `bounded Redis memory per waiting run (${Math.round(perRun)} bytes)`);
    await Promise.all(runIds.map((id) => stack.json(`/v1/runs/${id}`, { method: 'DELETE' })));
  } finally {
    await connection.quit();
  }
});
