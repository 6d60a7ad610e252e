/**
 * The agent step's model client (@switchyard/models) against the offline model over real HTTP:
 * what a fresh machine runs agents on. A turn offered tools gets parallel tool calls; the next,
 * with their results, a streamed final answer with usage; an injected 429 is waited out.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { ModelClient, parseModelsConfig, type ChatMessage, type ModelTool } from '@switchyard/models';
import { defaultModelFaults } from './model-faults.js';
import { startModelService, type RunningModelService } from './model-service.js';

const KEY = 'offline-model-key';
let model: RunningModelService;
let client: ModelClient;

before(async () => {
  model = await startModelService({ apiKeys: [KEY], logger: createLogger({ name: 'test', level: 'silent' }) });
  // As a worker builds it: no LLM_BASE_URL, so `default` is the offline model, with the tool services' key.
  client = new ModelClient({ models: parseModelsConfig({ env: { TOOL_SERVICE_API_KEY: KEY }, fallbackBaseUrl: model.baseUrl }), baseBackoffMs: 10 });
});
after(() => model.close());
beforeEach(() => Object.assign(model.faults, defaultModelFaults()));

const TOOLS: ModelTool[] = [
  { name: 'search_web', description: 'Search the web for pages on a topic', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
  { name: 'get_weather', description: 'Weather forecast for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
];
const ASK: ChatMessage[] = [{ role: 'user', content: 'Search the web and give me the weather forecast for Lisbon' }];

test('the offline model, as the default model, answers a turn offered tools with parallel tool calls, then a streamed answer from their results', async () => {
  const first = await client.turn({ model: 'default', messages: ASK, tools: TOOLS, signal: new AbortController().signal });
  assert.deepEqual(first.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as unknown]), [
    ['search_web', { query: 'Lisbon' }],
    ['get_weather', { city: 'Lisbon' }],
  ]);
  assert.equal(first.finishReason, 'tool_calls');
  const history: ChatMessage[] = [
    ...ASK,
    { role: 'assistant', content: first.content, tool_calls: first.toolCalls },
    ...first.toolCalls.map((call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: `${call.name}: sunny skies over Lisbon` })),
  ];
  const pieces: string[] = [];
  const final = await client.turn({ model: 'default', messages: history, tools: TOOLS, signal: new AbortController().signal, onToken: (piece) => pieces.push(piece) });
  assert.deepEqual(final.toolCalls, []);
  assert.match(final.content ?? '', /^Here is what the tools found about Lisbon: - search_web: search_web: sunny skies/);
  assert.ok(pieces.length > 10);
  assert.equal(pieces.join(''), final.content);
  assert.ok(final.usage.promptTokens > 0 && final.usage.completionTokens > 0);
  assert.equal(final.model, 'offline');
});

test('an injected 429 from the offline model is waited out for its Retry-After, then answered', async () => {
  Object.assign(model.faults, { failNext: 1, failureStatus: 429, retryAfterMs: 300 });
  const started = performance.now();
  const reply = await client.turn({ model: 'default', messages: [{ role: 'user', content: 'Tell me about tides' }], tools: [], signal: new AbortController().signal });
  assert.ok(performance.now() - started >= 290, 'the client waited as retry-after-ms asked');
  assert.equal(reply.attempts, 2);
  assert.match(reply.content ?? '', /tides/);
});
