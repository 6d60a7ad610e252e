/**
 * The offline model over real HTTP on loopback, driven by the clients agents use: LangChain's
 * ChatOpenAI (tool calls, parallel, then a final answer; streamed and not) and OpenAI's own client
 * (Retry-After), plus raw requests for the wire format, the bounds and a stream cut by its reader.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ChatOpenAI } from '@langchain/openai';
import type { AIMessageChunk} from '@langchain/core/messages';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import OpenAI from 'openai';
import { createLogger } from '@switchyard/logger';
import { defaultModelFaults } from './model-faults.js';
import { startModelService, type RunningModelService } from './model-service.js';

const KEY = 'model-test-key';
let model: RunningModelService;

before(async () => {
  model = await startModelService({ apiKeys: [KEY], logger: createLogger({ name: 'test', level: 'silent' }) });
});
after(() => model.close());
beforeEach(() => Object.assign(model.faults, defaultModelFaults()));

const TOOLS = [
  { type: 'function' as const, function: { name: 'search_web', description: 'Search the web for pages on a topic', parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 3 } }, required: ['query', 'limit'] } } },
  { type: 'function' as const, function: { name: 'get_weather', description: 'Weather forecast for a city', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city', 'unit'] } } },
  { type: 'function' as const, function: { name: 'send_email', description: 'Send an email to someone', parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } } },
];
const PROMPT = 'Search the web and give me the weather forecast for Lisbon';

const chatModel = (options: { streaming?: boolean } = {}) =>
  new ChatOpenAI({ model: 'switchyard-offline', apiKey: KEY, configuration: { baseURL: model.baseUrl }, maxRetries: 0, ...options }).bindTools(TOOLS);

const post = (body: unknown, init: RequestInit = {}) =>
  fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` }, body: typeof body === 'string' ? body : JSON.stringify(body), ...init });

/** The conversation after the model's tool calls, each answered by a tool message. */
function withToolResults(first: AIMessage): BaseMessage[] {
  const results = (first.tool_calls ?? []).map((call) => new ToolMessage({ tool_call_id: call.id ?? '', content: `${call.name} result: sunny skies and many pages about Lisbon` }));
  return [new HumanMessage(PROMPT), first, ...results];
}

test('ChatOpenAI with bound tools gets parallel tool calls, then a final answer summarising the tool results', async () => {
  const first = await chatModel().invoke([new HumanMessage(PROMPT)]);
  assert.deepEqual(first.tool_calls?.map((call) => [call.name, call.args]), [
    ['search_web', { query: 'Lisbon', limit: 3 }],
    ['get_weather', { city: 'Lisbon', unit: 'celsius' }],
  ]);
  assert.equal(first.response_metadata.finish_reason, 'tool_calls');
  const final = await chatModel().invoke(withToolResults(first));
  assert.deepEqual(final.tool_calls, []);
  assert.match(final.text, /^Here is what the tools found about Lisbon: - search_web: search_web result: sunny skies/);
  assert.match(final.text, /- get_weather: get_weather result/);
  assert.ok((final.usage_metadata?.input_tokens ?? 0) > 0 && (final.usage_metadata?.output_tokens ?? 0) > 0);
});

test('ChatOpenAI streaming gets the same tool calls in pieces and the same final answer word by word, with usage', async () => {
  const streamed = chatModel({ streaming: true });
  let calls: AIMessageChunk | undefined;
  for await (const chunk of await streamed.stream([new HumanMessage(PROMPT)])) calls = calls ? calls.concat(chunk) : chunk;
  assert.deepEqual(calls?.tool_calls?.map((call) => [call.name, call.args]), [
    ['search_web', { query: 'Lisbon', limit: 3 }],
    ['get_weather', { city: 'Lisbon', unit: 'celsius' }],
  ]);
  const pieces: string[] = [];
  let answer: AIMessageChunk | undefined;
  for await (const chunk of await streamed.stream(withToolResults(new AIMessage({ content: '', tool_calls: calls?.tool_calls ?? [] })))) {
    if (chunk.text) pieces.push(chunk.text);
    answer = answer ? answer.concat(chunk) : chunk;
  }
  const whole = await chatModel().invoke(withToolResults(new AIMessage({ content: '', tool_calls: calls?.tool_calls ?? [] })));
  assert.ok(pieces.length > 10, `expected a piece per word, got ${pieces.length}`);
  assert.equal(pieces.join(''), whole.text);
  assert.equal(answer?.usage_metadata?.output_tokens, whole.usage_metadata?.output_tokens);
});

test('the same request twice gives the same body, byte for byte', async () => {
  const request = { model: 'any', messages: [{ role: 'user', content: PROMPT }], tools: TOOLS };
  const [a, b] = await Promise.all([post(request).then((r) => r.text()), post(request).then((r) => r.text())]);
  assert.equal(a, b);
  const body = JSON.parse(a) as { object: string; choices: { message: { tool_calls: { id: string }[] } }[]; usage: { total_tokens: number } };
  assert.equal(body.object, 'chat.completion');
  assert.match(body.choices[0]?.message.tool_calls[0]?.id ?? '', /^call_[0-9a-f]{24}$/);
  assert.ok(body.usage.total_tokens > 0);
});

test('a request for JSON gets a JSON final answer', async () => {
  const res = await post({ model: 'any', response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'Tell me about tides' }] });
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.deepEqual(JSON.parse(body.choices[0]?.message.content ?? ''), { answer: 'Offline answer about tides.', sources: [] });
});

/** The status and OpenAI-shaped error of a refused request. */
async function refusal(res: Response): Promise<{ status: number; error: { message: string; type: string; param: string | null; code: string | null } }> {
  const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } };
  assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
  return { status: res.status, error: body.error };
}

test('bad requests answer 400 in OpenAI\'s error shape, naming what is wrong', async () => {
  const none = await refusal(await post({ model: 'any', messages: [] }));
  assert.equal(none.status, 400);
  assert.equal(none.error.type, 'invalid_request_error');
  assert.match(none.error.message, /at least one message/);
  const badSchema = await refusal(await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'object', properties: { a: { type: 'strin' } }, required: ['a'] } } }] }));
  assert.equal(badSchema.status, 400);
  assert.match(badSchema.error.param ?? '', /^tools\.0\.function\.parameters/);
  const undeclared = await refusal(await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'object', properties: {}, required: ['a'] } } }] }));
  assert.match(undeclared.error.message, /declared property/);
  const tooMany = Array.from({ length: 65 }, (_, i) => ({ type: 'function', function: { name: `tool_${i}` } }));
  const many = await refusal(await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }], tools: tooMany }));
  assert.equal(many.status, 400);
  assert.match(many.error.message, /at most 64 tools/);
  const manyMessages = await refusal(await post({ model: 'any', messages: Array.from({ length: 257 }, () => ({ role: 'user', content: 'hi' })) }));
  assert.match(manyMessages.error.message, /at most 256 messages/);
  const badRole = await refusal(await post({ model: 'any', messages: [{ role: 'wizard', content: 'hi' }] }));
  assert.equal(badRole.status, 400);
});

test('a 10 MB body answers 413 in OpenAI\'s error shape, and the endpoint answers others meanwhile', async () => {
  const huge = JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'x'.repeat(10 * 1024 * 1024) }] });
  const [tooLarge, models] = await Promise.all([post(huge).then(refusal), fetch(`${model.baseUrl}/models`, { headers: { Authorization: `Bearer ${KEY}` } })]);
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.error.type, 'invalid_request_error');
  assert.equal(models.status, 200);
});

test('a deeply nested tool schema is answered quickly with arguments cut past 8 levels, and a body nested past 64 levels is refused', async () => {
  let nested: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < 28; level += 1) nested = { type: 'object', properties: { inner: nested }, required: ['inner'] };
  const started = performance.now();
  const res = await post({ model: 'any', messages: [{ role: 'user', content: 'go deep' }], tools: [{ type: 'function', function: { name: 'deep', parameters: nested } }] });
  assert.equal(res.status, 200);
  assert.ok(performance.now() - started < 1000);
  const body = (await res.json()) as { choices: { message: { tool_calls: { function: { arguments: string } }[] } }[] };
  const args = body.choices[0]?.message.tool_calls[0]?.function.arguments ?? '';
  assert.equal(args, `${'{"inner":'.repeat(9)}null${'}'.repeat(9)}`, 'values nested past 8 levels are null');
  const tooDeep = await refusal(await post(`{"model":"any","messages":[{"role":"user","content":"x"}],"x":${'['.repeat(100)}${']'.repeat(100)}}`));
  assert.equal(tooDeep.status, 400);
  assert.match(tooDeep.error.message, /deeper than 64/);
});

test('a missing key answers 401 in OpenAI\'s error shape', async () => {
  const res = await fetch(`${model.baseUrl}/models`);
  const { status, error } = await refusal(res);
  assert.equal(status, 401);
  assert.equal(error.type, 'authentication_error');
});

test('an injected 429 carries Retry-After, and OpenAI\'s client waits that long and retries', async () => {
  Object.assign(model.faults, { failNext: 1, failureStatus: 429, retryAfterMs: 300 });
  const raw = await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(raw.status, 429);
  assert.equal(raw.headers.get('retry-after'), '1');
  assert.equal((await refusal(raw)).error.type, 'rate_limit_error');

  model.faults.failNext = 1;
  const client = new OpenAI({ baseURL: model.baseUrl, apiKey: KEY, maxRetries: 1 });
  const started = performance.now();
  const completion = await client.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
  assert.ok(performance.now() - started >= 290, 'the client waited the time retry-after-ms asked for');
  assert.equal(model.faults.failNext, 0);
  assert.equal(completion.choices[0]?.finish_reason, 'stop');
});

test('the latency knob delays an answer and an injected 500 is a server_error', async () => {
  model.faults.latencyMs = 150;
  const started = performance.now();
  assert.equal((await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  assert.ok(performance.now() - started >= 140);
  Object.assign(model.faults, { latencyMs: 0, failNext: 1, failureStatus: 500 });
  const failed = await refusal(await post({ model: 'any', messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual([failed.status, failed.error.type], [500, 'server_error']);
});

/** The `data:` payloads of an SSE body. */
const dataLines = (text: string) => text.split('\n\n').filter((event) => event.startsWith('data: ')).map((event) => event.slice('data: '.length));

test('a stream read to its end is chat.completion.chunk events, a finish_reason, usage, then [DONE]', async () => {
  const res = await post({ model: 'any', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: PROMPT }], tools: TOOLS });
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = dataLines(await res.text());
  assert.equal(events.at(-1), '[DONE]');
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event) as { object: string; choices: { delta: { tool_calls?: { index: number; id?: string }[] }; finish_reason: string | null }[]; usage: unknown });
  assert.ok(chunks.every((chunk) => chunk.object === 'chat.completion.chunk'));
  assert.deepEqual(chunks.at(-1)?.choices, []);
  assert.ok(chunks.at(-1)?.usage);
  assert.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'tool_calls');
  const ids = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []).filter((call) => call.id).map((call) => call.index);
  assert.deepEqual(ids, [0, 1]);
});

test('a stream its client aborts mid-way stops being written', async () => {
  model.faults.tokenDelayMs = 20;
  const { streamsAbandoned, chunksWritten } = model.stats;
  const abort = new AbortController();
  const res = await post({ model: 'any', stream: true, messages: [{ role: 'user', content: 'Tell me about the tides of the Atlantic' }] }, { signal: abort.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (dataLines(text).length < 3) {
    const part = await reader?.read();
    if (!part || part.done) break;
    text += decoder.decode(part.value, { stream: true });
  }
  // A slow stream holds no one else up.
  assert.equal((await fetch(`${model.baseUrl}/models`, { headers: { Authorization: `Bearer ${KEY}` } })).status, 200);
  abort.abort();
  await waitFor(() => model.stats.streamsAbandoned === streamsAbandoned + 1);
  const written = model.stats.chunksWritten - chunksWritten;
  model.faults.tokenDelayMs = 0;
  const whole = dataLines(await (await post({ model: 'any', stream: true, messages: [{ role: 'user', content: 'Tell me about the tides of the Atlantic' }] })).text());
  assert.ok(written < whole.length - 10, `wrote ${written} chunks of ${whole.length} before it stopped`);
});

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
