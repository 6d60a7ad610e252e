/**
 * Structured outputs and token budgets as a model sees them: the shipped research agent on a model
 * that reads only `response_format` (never the instructions), a strict schema sent strict, a server
 * that refuses `response_format` answered by the correction loop, and each turn's `max_tokens`
 * being what is left of the step's budget, so that a turn cannot write past it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel, type ScriptedRequest, type ScriptStep } from '@switchyard/models/testing';
import { argumentsFor } from '../../services/tool-services/src/model/arguments.js';
import { structuredAnswer } from '../../services/tool-services/src/model/structured-answer.js';
import { finishedRun, registerPipeline, startRun, stageOf } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const openingOf = (request: ScriptedRequest) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');
const toolResults = (request: ScriptedRequest) => request.messages.filter((m) => m.role === 'tool');

/**
 * A model that calls every tool it is offered once, then answers: with `response_format`
 * json_schema, JSON built from that schema alone; without it, prose (it never guesses a shape from
 * the instructions). With `max_tokens`, it writes at most that many tokens and says `length`.
 */
function schemaOnly(request: ScriptedRequest, wanted = 40): ScriptStep {
  if (toolResults(request).length === 0 && request.tools.length > 0) {
    return { toolCalls: request.tools.map((tool) => ({ name: tool.name, arguments: JSON.stringify(argumentsFor(tool.parameters as never, 'tea')) })), usage: { promptTokens: 100, completionTokens: 20 } };
  }
  const schema = request.responseFormat?.json_schema?.schema;
  const sources = toolResults(request).map((m, i) => ({ tool: request.tools[i]?.name ?? 'tool', summary: String(m.content).slice(0, 40) }));
  const content = schema ? JSON.stringify(structuredAnswer(schema, { topic: 'tea', sources })) : 'Here is what I found about tea, in my own words.';
  const max = request.maxTokens ?? Infinity;
  return { content, usage: { promptTokens: 200, completionTokens: Math.min(wanted, max) }, finishReason: wanted > max ? 'length' : 'stop' };
}

let model: ScriptedModel;
let refuser: ScriptedModel;
let stack: TestStack;

before(async () => {
  model = await startScriptedModel({ script: (request) => (/budget:(\d+)/.test(openingOf(request)) ? budgetScene(request) : schemaOnly(request)) });
  // Refuses any request with response_format, as servers without structured outputs do.
  refuser = await startScriptedModel({
    script: (request) => {
      if (request.responseFormat) return { status: 400 };
      return request.messages.some((m) => m.role === 'user' && /does not fit/.test(String(m.content))) ? { content: '{"facts": ["tea is old"]}' } : { content: 'prose first' };
    },
  });
  const models = new ModelClient({
    models: new Map([
      ['default', { name: 'default', baseUrl: model.baseUrl, model: 'schema-only' }],
      ['refuser', { name: 'refuser', baseUrl: refuser.baseUrl, model: 'refuser' }],
    ]),
    baseBackoffMs: 20,
    maxBackoffMs: 200,
  });
  stack = await startTestStack({ label: 'agent-structured', agents: { models, modelNames: ['default', 'refuser'] } });
});
after(async () => {
  await stack.close();
  await model.close();
  await refuser.close();
});

test('the shipped research agent completes on a model that follows only response_format, which carries its output_schema', async () => {
  const run = await finishedRun(stack, await startRun(stack, 'research-agent', { topic: 'the history of tea' }), 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const result = run.result as { answer: string; sources: { tool: string; summary: string }[] };
  assert.equal(typeof result.answer, 'string');
  assert.deepEqual(result.sources.map((s) => s.tool).sort(), ['generate_structured_outline', 'search_relevant_information']);
  const asked = model.requests.filter((r) => /history of tea/.test(openingOf(r)));
  assert.ok(asked.length >= 2);
  for (const request of asked) {
    assert.equal(request.responseFormat?.type, 'json_schema');
    assert.equal(request.responseFormat?.json_schema?.name, 'research');
    // Its schema leaves objects open, which strict mode refuses: sent, but not strict.
    assert.equal(request.responseFormat?.json_schema?.strict, false);
    assert.deepEqual(request.responseFormat?.json_schema?.schema.required, ['answer', 'sources']);
  }
  const stage = stageOf(run, 'research') as unknown as { agent: { messages: { role: string; content?: string }[] } };
  assert.ok(!stage.agent.messages.some((m) => m.role === 'user' && /does not fit/.test(m.content ?? '')), 'no correction was needed');
});

test('a schema strict mode accepts (closed objects, every property required) is sent strict', async () => {
  const schema = { type: 'object', additionalProperties: false, required: ['facts'], properties: { facts: { type: 'array', items: { type: 'string' } } } };
  await registerPipeline(stack, { name: 'strict-facts', input: { type: 'object', properties: { topic: { type: 'string' } } }, steps: { facts: { agent: { prompt: "'strict facts about ' & input.topic", output_schema: schema } } }, output: 'steps.facts' });
  const run = await finishedRun(stack, await startRun(stack, 'strict-facts', { topic: 'kites' }), 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.ok(Array.isArray((run.result as { facts: unknown }).facts));
  const request = model.requests.find((r) => /strict facts about kites/.test(openingOf(r)));
  assert.equal(request?.responseFormat?.json_schema?.strict, true);
  assert.equal(request?.responseFormat?.json_schema?.name, 'facts');
});

test('a server that refuses response_format is asked again without it, and the correction loop gets the answer into shape', async () => {
  const factsSchema = { type: 'object', required: ['facts'], properties: { facts: { type: 'array', items: { type: 'string' } } } };
  await registerPipeline(stack, { name: 'refused-format', steps: { facts: { agent: { model: 'refuser', prompt: "'facts about tea'", tools: ['search_relevant_information'], output_schema: factsSchema } } } });
  const run = await finishedRun(stack, await startRun(stack, 'refused-format', {}), 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual((run.result as { facts: unknown }).facts, { facts: ['tea is old'] });
  assert.equal(refuser.requests.filter((r) => r.responseFormat).length, 1, 'one request carried response_format; the client has not sent it since');
  assert.equal(refuser.counters.failures, 1);
});

/** `budget:<n>` prompts: every turn asks for one tool call and would write 300 tokens of it if let. */
function budgetScene(request: ScriptedRequest): ScriptStep {
  const max = request.maxTokens ?? Infinity;
  const prompt = 100 * (request.messages.filter((m) => m.role === 'assistant').length + 1);
  if (max < 300) return { content: 'cut short', usage: { promptTokens: prompt, completionTokens: max }, finishReason: 'length' };
  return { toolCalls: [{ name: 'search_relevant_information', arguments: '{"topic":"tea"}' }], usage: { promptTokens: prompt, completionTokens: 300 } };
}

test("each turn's max_tokens is what is left of the step's budget, so the step stops at its budget and never past it", async () => {
  const budget = 1300;
  await registerPipeline(stack, { name: 'budgeted', steps: { think: { agent: { prompt: `'budget:${budget}'`, tools: ['search_relevant_information'], max_tokens: budget, max_turns: 10 } } } });
  const run = await finishedRun(stack, await startRun(stack, 'budgeted', {}), 30_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'agent_tokens_exceeded');
  const agent = (stageOf(run, 'think') as unknown as { agent: { usage: { prompt_tokens: number; completion_tokens: number } } }).agent;
  const spent = agent.usage.prompt_tokens + agent.usage.completion_tokens;
  const asked = model.requests.filter((r) => /budget:1300/.test(openingOf(r)));
  console.log(`# a ${budget}-token budget: ${asked.length} turns sent max_tokens ${asked.map((r) => r.maxTokens).join(', ')}; spent ${spent}`);
  assert.ok(spent <= budget, `spent ${spent} of ${budget}`);
  assert.ok(asked.every((r) => typeof r.maxTokens === 'number' && r.maxTokens > 0), 'every request carried max_tokens');
  const first = asked[0]?.maxTokens ?? 0;
  assert.ok(first < budget && first > budget / 2, `the first turn may spend the budget less its prompt (${first})`);
  for (let i = 1; i < asked.length; i += 1) assert.ok((asked[i]?.maxTokens ?? 0) < (asked[i - 1]?.maxTokens ?? 0), 'each turn is left less');
});
