/**
 * The offline model's Anthropic door (`POST /v1/messages`) read by the agent step's model client
 * with `provider: anthropic` (LangChain's ChatAnthropic), beside its OpenAI door: the same tool
 * calls and answers, the same token counts, stop_reason said as finish_reason, prompt caching in
 * the usage, output_config honoured, max_tokens honoured, errors in Anthropic's shape, and a 429
 * waited out.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { ModelClient, parseModelsConfig, type ChatMessage, type ModelTool, type TurnReply } from '@switchyard/models';
import { defaultModelFaults } from './model-faults.js';
import { startModelService, type RunningModelService } from './model-service.js';

const KEY = 'offline-model-key';
let model: RunningModelService;
let client: ModelClient;

before(async () => {
  model = await startModelService({ apiKeys: [KEY], logger: createLogger({ name: 'test', level: 'silent' }) });
  const MODELS = JSON.stringify({ claude: { provider: 'anthropic', base_url: model.url, api_key_env: 'CLAUDE_KEY', model: 'claude-offline' } });
  client = new ModelClient({ models: parseModelsConfig({ env: { TOOL_SERVICE_API_KEY: KEY, CLAUDE_KEY: KEY, MODELS }, fallbackBaseUrl: model.baseUrl }), baseBackoffMs: 10 });
});
after(() => model.close());
beforeEach(() => Object.assign(model.faults, defaultModelFaults()));

const TOOLS: ModelTool[] = [
  { name: 'search_web', description: 'Search the web for pages on a topic', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  { name: 'get_weather', description: 'Weather forecast for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];
const ASK: ChatMessage[] = [
  { role: 'system', content: 'You are a careful assistant who checks the forecast twice.' },
  { role: 'user', content: 'Search the web and give me the weather forecast for Lisbon' },
];
const signal = () => new AbortController().signal;

async function conversation(name: string): Promise<{ first: TurnReply; final: TurnReply; pieces: string[] }> {
  const first = await client.turn({ model: name, messages: ASK, tools: TOOLS, signal: signal() });
  const history: ChatMessage[] = [
    ...ASK,
    { role: 'assistant', content: first.content, tool_calls: first.toolCalls },
    ...first.toolCalls.map((call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: `${call.name}: sunny skies over Lisbon` })),
  ];
  const pieces: string[] = [];
  const final = await client.turn({ model: name, messages: history, tools: TOOLS, signal: signal(), onToken: (piece) => pieces.push(piece) });
  return { first, final, pieces };
}

test('a model with provider anthropic gets the same tool calls, streamed answer and token counts as the same model over OpenAI’s format', async () => {
  const anthropic = await conversation('claude');
  const openai = await conversation('default');
  assert.deepEqual(anthropic.first.toolCalls.map((c) => [c.name, c.arguments]), openai.first.toolCalls.map((c) => [c.name, c.arguments]));
  assert.match(anthropic.first.toolCalls[0]?.id ?? '', /^toolu_/);
  assert.equal(anthropic.first.finishReason, 'tool_calls', 'stop_reason tool_use is said as tool_calls');
  assert.equal(anthropic.final.content, openai.final.content);
  assert.equal(anthropic.final.finishReason, 'stop', 'end_turn is said as stop');
  assert.ok(anthropic.pieces.length > 10, 'the answer streamed');
  assert.equal(anthropic.pieces.join(''), anthropic.final.content);
  for (const turn of ['first', 'final'] as const) {
    assert.equal(anthropic[turn].usage.promptTokens, openai[turn].usage.promptTokens, `${turn} turn: prompt tokens (cached ones included)`);
    assert.equal(anthropic[turn].usage.completionTokens, openai[turn].usage.completionTokens);
  }
  assert.equal(anthropic.first.usage.cachedTokens, undefined, 'the first turn writes the cache');
  assert.equal(anthropic.final.usage.cachedTokens, 10, 'the next turn reads the system prompt from the cache');
  assert.equal(anthropic.final.model, 'claude-offline');
});

test('output_config json_schema and max_tokens are honoured on the Anthropic door: JSON from the schema, and a cut answer says length', async () => {
  const schema = { type: 'object', additionalProperties: false, required: ['city', 'summary'], properties: { city: { type: 'string' }, summary: { type: 'string' } } };
  const structured = await client.turn({ model: 'claude', messages: [{ role: 'user', content: 'Weather about Lisbon' }], tools: [], responseFormat: { name: 'w', schema, strict: true }, signal: signal() });
  assert.deepEqual(Object.keys(JSON.parse(structured.content ?? '') as object), ['city', 'summary']);
  const cut = await client.turn({ model: 'claude', messages: [{ role: 'user', content: 'Tell me about tides' }], tools: [], maxTokens: 3, signal: signal() });
  assert.equal(cut.finishReason, 'length');
  assert.equal(cut.usage.completionTokens, 3);
  assert.equal(cut.content?.split(' ').length, 3);
});

test('the Anthropic door answers errors in Anthropic’s shape, and an injected 429 is waited out', async () => {
  const bad = await fetch(`${model.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
  assert.equal(bad.status, 400);
  const body = (await bad.json()) as { type: string; error: { type: string; message: string } };
  assert.equal(body.type, 'error');
  assert.equal(body.error.type, 'invalid_request_error');
  assert.match(body.error.message, /max_tokens/);
  Object.assign(model.faults, { failNext: 1, failureStatus: 429, retryAfterMs: 300 });
  const started = performance.now();
  const reply = await client.turn({ model: 'claude', messages: [{ role: 'user', content: 'Tell me about tides' }], tools: [], signal: signal() });
  assert.ok(performance.now() - started >= 290);
  assert.equal(reply.attempts, 2);
});
