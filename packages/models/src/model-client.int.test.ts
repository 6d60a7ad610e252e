/**
 * The model client against the scripted model over real HTTP on loopback: tool calls, streamed
 * text, the history sent back, the reply's bounds and cancellation mid-stream.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ModelCallError } from './errors.js';
import type { ChatMessage, ModelTool } from './messages.js';
import { ModelClient, type ModelClientOptions, type ModelTurnEvent } from './model-client.js';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from './testing/scripted-model.js';

let model: ScriptedModel;
/** What the scripted model answers next; each test sets it. */
let next: (n: number) => ScriptStep = () => ({ content: 'ok' });

before(async () => {
  model = await startScriptedModel({ script: (_request, n) => next(n) });
});
after(() => model.close());
beforeEach(() => {
  model.requests.length = 0;
  model.tokenDelayMs = 0;
});

const clientFor = (options: Partial<ModelClientOptions> = {}) =>
  new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, apiKey: 'test-key', model: 'scripted-1' }]]), baseBackoffMs: 10, ...options });

const TOOLS: ModelTool[] = [
  { name: 'search', description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
];
const ASK: ChatMessage[] = [
  { role: 'system', content: 'You are careful.' },
  { role: 'user', content: 'Find the weather in Lisbon' },
];

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelCallError, `expected a ModelCallError, got ${String(error)}`);
    return error;
  }
  assert.fail('the turn was expected to fail');
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('a turn with parallel tool calls returns them all, each with its arguments as the text the model sent', async () => {
  next = () => ({ toolCalls: [{ name: 'search', arguments: '{"query":"Lisbon weather"}' }, { name: 'weather', arguments: '{"city": "Lisbon"}' }, { name: 'search', arguments: '{"query": oops' }] });
  const reply = await clientFor().turn({ model: 'default', messages: ASK, tools: TOOLS, signal: new AbortController().signal });
  assert.deepEqual(
    reply.toolCalls.map((call) => [call.id, call.name, call.arguments]),
    [
      ['call_0_0', 'search', '{"query":"Lisbon weather"}'],
      ['call_0_1', 'weather', '{"city": "Lisbon"}'],
      ['call_0_2', 'search', '{"query": oops'],
    ],
  );
  assert.equal(reply.content, null);
  assert.equal(reply.finishReason, 'tool_calls');
  assert.equal(reply.model, 'scripted-1');
  assert.equal(reply.attempts, 1);
  const seen = model.requests[0];
  assert.equal(seen?.stream, true, 'the turn is streamed');
  assert.equal(seen?.authorization, 'Bearer test-key');
  assert.deepEqual(seen?.tools.map((tool) => tool.name), ['search', 'weather']);
  assert.deepEqual(seen?.tools[0]?.parameters, TOOLS[0]?.parameters);
});

test('a response format goes as response_format json_schema, and max_tokens is capped by the model\'s own maximum', async () => {
  next = () => ({ content: '{"a":"x"}' });
  const schema = { type: 'object', additionalProperties: false, required: ['a'], properties: { a: { type: 'string' } } };
  const client = new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted-1', maxOutputTokens: 30 }]]), baseBackoffMs: 10 });
  await client.turn({ model: 'default', messages: ASK, tools: [], maxTokens: 500, responseFormat: { name: 'answer', schema, strict: true }, signal: new AbortController().signal });
  await client.turn({ model: 'default', messages: ASK, tools: [], maxTokens: 10, signal: new AbortController().signal });
  await client.turn({ model: 'default', messages: ASK, tools: [], signal: new AbortController().signal });
  assert.deepEqual(model.requests[0]?.responseFormat, { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
  assert.deepEqual(model.requests.map((r) => r.maxTokens), [30, 10, 30]);
  assert.equal(model.requests[1]?.responseFormat, undefined);
});

test('a server that refuses response_format (400) is asked again without it at once, and not sent it again', async () => {
  next = (n) => (n === 0 || model.requests.at(-1)?.responseFormat ? { status: 400 } : { content: 'plain' });
  const client = clientFor();
  const format = { name: 'answer', schema: { type: 'object' }, strict: false };
  const reply = await client.turn({ model: 'default', messages: ASK, tools: [], responseFormat: format, signal: new AbortController().signal });
  assert.equal(reply.content, 'plain');
  assert.equal(reply.attempts, 1, 'the request without it is part of the same attempt');
  await client.turn({ model: 'default', messages: ASK, tools: [], responseFormat: format, signal: new AbortController().signal });
  assert.deepEqual(model.requests.map((r) => r.responseFormat !== undefined), [true, false, false]);
});

test('the history goes back as given: tool calls with their exact arguments text (even broken JSON) and the results that answer them', async () => {
  next = () => ({ content: 'It is sunny.' });
  const history: ChatMessage[] = [
    ...ASK,
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'search', arguments: '{"query": oops' }, { id: 'call_b', name: 'weather', arguments: '{"city":"Lisbon"}' }] },
    { role: 'tool', tool_call_id: 'call_a', content: 'invalid arguments: not JSON' },
    { role: 'tool', tool_call_id: 'call_b', content: 'sunny, 24 C' },
  ];
  const reply = await clientFor().turn({ model: 'default', messages: history, tools: TOOLS, maxTokens: 50, signal: new AbortController().signal });
  assert.equal(reply.content, 'It is sunny.');
  const seen = model.requests[0];
  assert.equal(seen?.maxTokens, 50);
  assert.deepEqual(seen?.messages.map((message) => message.role), ['system', 'user', 'assistant', 'tool', 'tool']);
  const assistant = seen?.messages[2] as { tool_calls: { id: string; function: { name: string; arguments: string } }[] };
  assert.deepEqual(assistant.tool_calls.map((call) => [call.id, call.function.name, call.function.arguments]), [
    ['call_a', 'search', '{"query": oops'],
    ['call_b', 'weather', '{"city":"Lisbon"}'],
  ]);
  assert.deepEqual(seen?.messages.slice(3).map((message) => message.tool_call_id), ['call_a', 'call_b']);
});

test('a streamed answer calls onToken piece by piece, in order, and returns the usage the model reported', async () => {
  const text = 'The tides of the Atlantic rise twice a day, pulled by the moon and the sun together.';
  next = () => ({ content: text, usage: { promptTokens: 123, completionTokens: 17 } });
  const pieces: string[] = [];
  const events: ModelTurnEvent[] = [];
  const reply = await clientFor({ observer: { onTurn: (event) => events.push(event) } }).turn({ model: 'default', messages: ASK, tools: [], signal: new AbortController().signal, onToken: (piece) => pieces.push(piece) });
  assert.ok(pieces.length >= 15, `a piece per word, got ${pieces.length}`);
  assert.equal(pieces.join(''), text);
  assert.equal(reply.content, text);
  assert.deepEqual(reply.usage, { promptTokens: 123, completionTokens: 17 });
  assert.equal(reply.finishReason, 'stop');
  assert.equal(events.length, 1);
  assert.deepEqual({ ...events[0], latencyMs: 0 }, { model: 'default', latencyMs: 0, promptTokens: 123, completionTokens: 17, outcome: 'ok', attempts: 1 });
});

test('a turn cancelled during a slow token stream rejects with model_cancelled within a second, and the model sees the connection closed', async () => {
  next = () => ({ content: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ') });
  model.tokenDelayMs = 100;
  const abandoned = model.counters.streamsAbandoned;
  const abort = new AbortController();
  const pieces: string[] = [];
  const events: ModelTurnEvent[] = [];
  const turn = clientFor({ observer: { onTurn: (event) => events.push(event) } }).turn({ model: 'default', messages: ASK, tools: [], signal: abort.signal, onToken: (piece) => pieces.push(piece) });
  await waitFor(() => pieces.length >= 3, 'three tokens streamed');
  const aborted = performance.now();
  abort.abort();
  const error = await rejection(turn);
  const tookMs = performance.now() - aborted;
  console.log(`cancelled after ${pieces.length} tokens; rejected ${tookMs.toFixed(1)} ms after the abort`);
  assert.equal(error.code, 'model_cancelled');
  assert.equal(error.retryable, false);
  assert.ok(tookMs < 3000, `rejected ${tookMs} ms after the abort`);
  await waitFor(() => model.counters.streamsAbandoned === abandoned + 1, 'the model saw its client leave');
  assert.equal(model.requests.length, 1, 'a cancelled turn is not retried');
  assert.equal(events[0]?.outcome, 'model_cancelled');
});

test('a slow stream holds no other turn up: a second turn completes while the first is still streaming', async () => {
  const firstOfTest = model.counters.requests;
  next = (n) => (n === firstOfTest ? { content: Array.from({ length: 100 }, (_, i) => `slow${i}`).join(' '), tokenDelayMs: 50 } : { content: 'quick' });
  const client = clientFor();
  const abort = new AbortController();
  const pieces: string[] = [];
  const slow = client.turn({ model: 'default', messages: ASK, tools: [], signal: abort.signal, onToken: (piece) => pieces.push(piece) });
  await waitFor(() => pieces.length >= 1, 'the slow stream started');
  const quick = await client.turn({ model: 'default', messages: ASK, tools: [], signal: new AbortController().signal });
  assert.equal(quick.content, 'quick');
  assert.ok(pieces.length < 100, 'the slow turn was still streaming');
  abort.abort();
  assert.equal((await rejection(slow)).code, 'model_cancelled');
});

test('a turn whose signal already fired sends nothing', async () => {
  const abort = new AbortController();
  abort.abort();
  const error = await rejection(clientFor().turn({ model: 'default', messages: ASK, tools: [], signal: abort.signal }));
  assert.equal(error.code, 'model_cancelled');
  assert.equal(model.requests.length, 0);
});

test('a reply with more tool calls than allowed fails with model_reply_invalid and is not asked again', async () => {
  next = () => ({ toolCalls: Array.from({ length: 6 }, () => ({ name: 'search', arguments: '{}' })) });
  const error = await rejection(clientFor({ bounds: { maxToolCalls: 5 } }).turn({ model: 'default', messages: ASK, tools: TOOLS, signal: new AbortController().signal }));
  assert.equal(error.code, 'model_reply_invalid');
  assert.match(error.message, /more than 5 tool calls/);
  assert.equal(model.requests.length, 1);
});

test('a reply whose text passes its bytes fails with model_reply_invalid while it streams, and the stream is closed', async () => {
  next = () => ({ content: 'lorem '.repeat(2000) });
  model.tokenDelayMs = 2;
  const abandoned = model.counters.streamsAbandoned;
  const pieces: string[] = [];
  const error = await rejection(clientFor({ bounds: { maxContentBytes: 1000 } }).turn({ model: 'default', messages: ASK, tools: [], signal: new AbortController().signal, onToken: (piece) => pieces.push(piece) }));
  assert.equal(error.code, 'model_reply_invalid');
  assert.match(error.message, /text passed 1000 bytes/);
  assert.ok(pieces.join('').length <= 1000, 'no text past the bound was handed on');
  await waitFor(() => model.counters.streamsAbandoned === abandoned + 1, 'the stream was closed at the bound');
  assert.equal(model.requests.length, 1);
});

test('a tool call whose arguments pass their bytes fails with model_reply_invalid', async () => {
  next = () => ({ toolCalls: [{ name: 'search', arguments: JSON.stringify({ query: 'x'.repeat(5000) }) }] });
  const error = await rejection(clientFor({ bounds: { maxArgumentBytes: 4096 } }).turn({ model: 'default', messages: ASK, tools: TOOLS, signal: new AbortController().signal }));
  assert.equal(error.code, 'model_reply_invalid');
  assert.match(error.message, /arguments of tool call search passed 4096 bytes/);
});

test('a model name that is not configured fails with model_unknown, naming the configured ones', async () => {
  const error = await rejection(clientFor().turn({ model: 'gpt-9', messages: ASK, tools: [], signal: new AbortController().signal }));
  assert.equal(error.code, 'model_unknown');
  assert.match(error.message, /"gpt-9".*configured: default/);
  assert.equal(model.requests.length, 0);
});
