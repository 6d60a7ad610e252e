/**
 * An agent step against a scripted model (its own test server) and a tool service of the test's
 * own that counts its calls: parallel calls, arguments that break the schema, a tool failing at a
 * rate, a model failing at a rate and asking to wait, a stream cancelled midway, an answer that
 * breaks output_schema, a model that never stops calling tools, and a token budget.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel, type ScriptedRequest, type ScriptStep } from '@switchyard/models/testing';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { finishedRun, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

type Scene = (turn: number, id: string, request: ScriptedRequest) => ScriptStep;
const scenes = new Map<string, Scene>();
const note = (key: string) => ({ name: 'note_fact', arguments: JSON.stringify({ key }) });
const openingOf = (request: ScriptedRequest) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');
const toolTexts = (request: ScriptedRequest) => request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

let model: ScriptedModel;
let ledger: LedgerService;
let stack: TestStack;

before(async () => {
  model = await startScriptedModel({
    script: (request) => {
      const [, scene, id] = /scene:(\S+) id:(\S+)/.exec(openingOf(request)) ?? [];
      const play = scene ? scenes.get(scene) : undefined;
      if (!play || !id) return { content: 'no scene' };
      return play(request.messages.filter((m) => m.role === 'assistant').length + 1, id, request);
    },
  });
  ledger = await startLedgerService();
  const models = new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted' }]]), baseBackoffMs: 20, maxBackoffMs: 200 });
  stack = await startTestStack({ label: 'agent-behaviour', toolEnv: ledger.toolEnv, agents: { models }, breaker: { minimumCalls: 1000 } });
});
after(async () => {
  await stack.close();
  await ledger.close();
  await model.close();
});

const agentPipeline = (name: string, agent: Record<string, unknown>) => ({
  name,
  input: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
  steps: { think: { agent: { prompt: `'scene:${name} id:' & input.id`, tools: ['note_fact'], ...agent } } },
  output: 'steps.think',
});

async function runScene(name: string, scene: Scene, agent: Record<string, unknown> = {}, id = name): Promise<RunBody> {
  scenes.set(name, scene);
  await registerPipeline(stack, agentPipeline(name, agent));
  return finishedRun(stack, await startRun(stack, name, { id }), 60_000);
}

const transcriptOf = (run: RunBody) => (stageOf(run, 'think') as unknown as { agent: { turns: number; messages: { role: string; content?: string | null; is_error?: boolean; tool_calls?: unknown[] }[] } }).agent;

test('the calls a model asks for in one turn run in parallel, each once, and the model reads every result', async () => {
  ledger.latency.ms = 300;
  const run = await runScene('parallel', (turn, id, request) => (turn === 1 ? { toolCalls: [note(`${id}/a`), note(`${id}/b`), note(`${id}/c`)] } : { content: `read ${toolTexts(request).length} results` }));
  ledger.latency.ms = 0;
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(run.result, 'read 3 results');
  const calls = ledger.calls.filter((c) => c.key.startsWith('parallel/'));
  assert.equal(calls.length, 3);
  const spread = Math.max(...calls.map((c) => c.startedAt)) - Math.min(...calls.map((c) => c.startedAt));
  assert.ok(spread < 250, `the three calls started together (within ${spread} ms), not one after another`);
});

test('a call whose arguments break the tool schema, are not JSON or name no tool is answered with the reason, and nothing is called', async () => {
  const before = ledger.calls.length;
  const run = await runScene('invalid', (turn, _id, request) =>
    turn === 1
      ? { toolCalls: [{ name: 'note_fact', arguments: '{"key": 5}' }, { name: 'note_fact', arguments: '{not json' }, { name: 'launch_rockets', arguments: '{}' }] }
      : { content: toolTexts(request).join(' | ') },
  );
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(ledger.calls.length, before, 'no call reached the tool');
  const answer = String(run.result);
  assert.match(answer, /do not fit the tool's schema: \/key must be string/);
  assert.match(answer, /not JSON/);
  assert.match(answer, /there is no tool launch_rockets/);
  assert.equal(transcriptOf(run).messages.filter((m) => m.role === 'tool' && m.is_error).length, 3);
});

test('a tool failing 30 % of the time is retried like any step: twenty agents complete and every call has its result', async () => {
  ledger.faults.failureRate = 0.3;
  const started = ledger.calls.length;
  scenes.set('flaky-tool', (turn, id) => (turn === 1 ? { toolCalls: [note(`${id}/1`), note(`${id}/2`)] } : { content: 'ok' }));
  await registerPipeline(stack, agentPipeline('flaky-tool', {}));
  const runIds = await Promise.all(Array.from({ length: 20 }, (_, i) => startRun(stack, 'flaky-tool', { id: `ft${i}` })));
  const runs = await Promise.all(runIds.map((id) => finishedRun(stack, id, 90_000)));
  ledger.faults.failureRate = 0;
  const errors = runs.flatMap((run) => transcriptOf(run).messages.filter((m) => m.role === 'tool' && m.is_error));
  console.log(`# flaky tool (30 % of requests answered 503 before the tool ran): ${runs.filter((r) => r.status === 'completed').length}/20 runs completed, the tool ran ${ledger.calls.length - started} times for 40 calls asked, ${errors.length} results were errors`);
  assert.ok(runs.every((run) => run.status === 'completed'), JSON.stringify(runs.map((r) => r.error).filter(Boolean)));
  assert.equal(errors.length, 0);
});

test('a model answering 500 or 429 at a rate is asked again with backoff, and a Retry-After is waited out', async () => {
  const asked = new Map<string, number>();
  let failures = 0;
  const run = await runScene('flaky-model', (turn, id) => {
    const n = asked.get(`${id}/${turn}`) ?? 0;
    asked.set(`${id}/${turn}`, n + 1);
    if (n === 0) {
      failures += 1;
      return turn === 1 ? { status: 429, retryAfterMs: 1000 } : { status: 500 };
    }
    return turn === 1 ? { toolCalls: [note(`${id}/x`)] } : { content: 'recovered' };
  });
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal(failures, 2);
  const times = model.requests.filter((r) => openingOf(r).includes('scene:flaky-model')).map((r) => r.receivedAt);
  assert.ok((times[1] ?? 0) - (times[0] ?? 0) >= 1000, `the 429's Retry-After was waited out (${Math.round((times[1] ?? 0) - (times[0] ?? 0))} ms)`);

  // At a rate: a third of all requests fail, 500 and 429 in turn, over twenty runs.
  let n = 0;
  scenes.set('model-rate', (turn, id) => {
    n += 1;
    if (n % 3 === 0) return n % 2 === 0 ? { status: 500 } : { status: 429, retryAfterMs: 50 };
    return turn === 1 ? { toolCalls: [note(`${id}/y`)] } : { content: 'fine' };
  });
  await registerPipeline(stack, agentPipeline('model-rate', {}));
  const runs = await Promise.all(Array.from({ length: 20 }, async (_, i) => finishedRun(stack, await startRun(stack, 'model-rate', { id: `mr${i}` }), 90_000)));
  console.log(`# model failing every third request: ${runs.filter((r) => r.status === 'completed').length}/20 runs completed over ${n} requests`);
  assert.ok(runs.every((r) => r.status === 'completed'), JSON.stringify(runs.map((r) => r.error).filter(Boolean)));
});

test('cancelling a run stops its slow token stream within a second', async () => {
  scenes.set('slow', () => ({ content: Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ') }));
  await registerPipeline(stack, agentPipeline('slow', {}));
  model.tokenDelayMs = 50;
  const abandoned = model.counters.streamsAbandoned;
  try {
    const runId = await startRun(stack, 'slow', { id: 'slow1' });
    await readSse(await stack.request(`/v1/runs/${runId}/events`), (event) => event.event === 'content');
    const cancelledAt = performance.now();
    const cancel = await stack.request(`/v1/runs/${runId}`, { method: 'DELETE' });
    assert.equal(cancel.status, 200);
    while (model.counters.streamsAbandoned === abandoned && performance.now() - cancelledAt < 5000) await new Promise((resolve) => setTimeout(resolve, 10));
    const ms = performance.now() - cancelledAt;
    assert.ok(model.counters.streamsAbandoned > abandoned, 'the model saw its stream closed');
    assert.ok(ms < 3000, `the stream closed ${Math.round(ms)} ms after the cancel`);
    const run = await finishedRun(stack, runId);
    assert.equal(run.status, 'cancelled');
  } finally {
    model.tokenDelayMs = 0;
  }
});

const factsSchema = { type: 'object', required: ['facts'], properties: { facts: { type: 'array', items: { type: 'string' } } } };

test('an answer that breaks output_schema goes back to the model once with the reasons; a second bad one fails the step with invalid_output', async () => {
  const mended = await runScene('mend', (turn) => (turn === 1 ? { content: 'Facts: tea is old.' } : { content: '```json\n{"facts": ["tea is old"]}\n```' }), { output_schema: factsSchema });
  assert.equal(mended.status, 'completed', JSON.stringify(mended.error));
  assert.deepEqual(mended.result, { facts: ['tea is old'] });
  const nudge = transcriptOf(mended).messages.find((m) => m.role === 'user' && /does not fit/.test(m.content ?? ''));
  assert.ok(nudge, 'the transcript keeps what the model was told');

  const broken = await runScene('unmended', () => ({ content: '{"facts": "not a list"}' }), { output_schema: factsSchema });
  assert.equal(broken.status, 'failed');
  assert.equal(broken.error?.code, 'invalid_output');
  assert.match(broken.error?.message ?? '', /facts: must be array/);
});

test('a model that never stops calling tools ends at max_turns with agent_turns_exceeded, its transcript kept', async () => {
  const run = await runScene('endless', (turn, id) => ({ toolCalls: [note(`${id}/${turn}`)] }), { max_turns: 3 });
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'agent_turns_exceeded');
  const transcript = transcriptOf(run);
  assert.equal(transcript.turns, 3);
  assert.deepEqual(ledger.calls.filter((c) => c.key.startsWith('endless/')).map((c) => c.key).sort(), ['endless/1', 'endless/2'], 'the last turn\'s calls were not made');
});

test('an agent whose next prompt would leave no reply within its max_tokens fails with agent_tokens_exceeded before asking, its transcript kept', async () => {
  const run = await runScene('greedy', (turn, id) => ({ toolCalls: [note(`${id}/${turn}`)], usage: { promptTokens: 700, completionTokens: 100 } }), { max_tokens: 1000 });
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'agent_tokens_exceeded');
  assert.match(run.error?.message ?? '', /next prompt takes about \d+/);
  assert.equal(transcriptOf(run).turns, 1);
  assert.equal(model.requests.filter((r) => openingOf(r).includes('scene:greedy')).length, 1, 'the second turn, whose prompt alone would pass the budget, was not asked');
});
