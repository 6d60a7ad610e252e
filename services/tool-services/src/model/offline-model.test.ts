import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentsFor } from './arguments.js';
import { replyTo } from './offline-model.js';
import { chatCompletionRequest, type ChatCompletionRequest } from './schema.js';
import { topicOf } from './words.js';

const request = (body: Record<string, unknown>): ChatCompletionRequest => chatCompletionRequest().parse({ model: 'm', ...body });
const tool = (name: string, description: string, parameters?: object) => ({ type: 'function', function: { name, description, ...(parameters ? { parameters } : {}) } });
const TOOLS = [tool('lookup_stock_price', 'Current price of a stock'), tool('translate_text', 'Translate text into another language'), tool('roll_dice', 'Roll dice')];

test('tools whose names or descriptions share a word with the prompt are called, in the order offered', () => {
  const reply = replyTo(request({ messages: [{ role: 'user', content: 'Translate the stock report into French' }], tools: TOOLS }));
  assert.deepEqual(reply.toolCalls.map((call) => call.name), ['lookup_stock_price', 'translate_text']);
  assert.equal(reply.finishReason, 'tool_calls');
  assert.equal(reply.content, null);
});

test('the first tool is called when none matches, and only the best one without parallel calls', () => {
  assert.deepEqual(replyTo(request({ messages: [{ role: 'user', content: 'Hello there' }], tools: TOOLS })).toolCalls.map((c) => c.name), ['lookup_stock_price']);
  const single = replyTo(request({ messages: [{ role: 'user', content: 'Translate this text about a stock' }], tools: TOOLS, parallel_tool_calls: false }));
  assert.deepEqual(single.toolCalls.map((c) => c.name), ['translate_text']);
});

test('tool_choice none answers in text, and a named tool_choice calls that tool even after results', () => {
  assert.equal(replyTo(request({ messages: [{ role: 'user', content: 'Roll dice' }], tools: TOOLS, tool_choice: 'none' })).toolCalls.length, 0);
  const forced = replyTo(request({
    messages: [{ role: 'user', content: 'Roll dice' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'roll_dice', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: '4' }],
    tools: TOOLS,
    tool_choice: { type: 'function', function: { name: 'roll_dice' } },
  }));
  assert.deepEqual(forced.toolCalls.map((c) => c.name), ['roll_dice']);
});

test('after tool results the answer quotes each result under its tool name', () => {
  const reply = replyTo(request({
    messages: [{ role: 'user', content: 'Roll dice for the board game' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'roll_dice', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'You rolled a four' }],
    tools: TOOLS,
  }));
  assert.equal(reply.content, 'Here is what the tools found about the board game: - roll_dice: You rolled a four');
  assert.equal(reply.finishReason, 'stop');
});

test('a system message asking for JSON makes the final answer JSON', () => {
  const reply = replyTo(request({ messages: [{ role: 'system', content: 'Reply in JSON only.' }, { role: 'user', content: 'Tell me about owls' }] }));
  assert.deepEqual(JSON.parse(reply.content ?? ''), { answer: 'Offline answer about owls.', sources: [] });
});

test('max_tokens cuts a text answer to that many words with finish_reason length', () => {
  const reply = replyTo(request({ messages: [{ role: 'user', content: 'Tell me about owls' }], max_tokens: 3 }));
  assert.equal(reply.content, 'You asked about');
  assert.equal(reply.finishReason, 'length');
  assert.equal(reply.usage.completion_tokens, 3);
});

test('usage counts the words read and written', () => {
  const reply = replyTo(request({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about owls' }] }));
  assert.equal(reply.usage.prompt_tokens, 6);
  assert.equal(reply.usage.total_tokens, reply.usage.prompt_tokens + reply.usage.completion_tokens);
  assert.equal(reply.usage.completion_tokens, (reply.content ?? '').split(' ').length);
});

test('arguments follow the schema: required fields only, topic strings, minimum or 1, first enum value, nested objects', () => {
  const args = argumentsFor(
    {
      properties: {
        query: { type: 'string' },
        count: { type: 'integer', minimum: 5 },
        ratio: { type: 'number' },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        tags: { type: 'array', minItems: 2, items: { type: 'string' } },
        where: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string' } }, required: ['city'] },
        optional: { type: 'string' },
      },
      required: ['query', 'count', 'ratio', 'mode', 'tags', 'where'],
    },
    'owls',
  );
  assert.deepEqual(args, { query: 'owls', count: 5, ratio: 1, mode: 'fast', tags: ['owls', 'owls'], where: { city: 'owls' } });
});

test('the topic is what follows about/on/for, or the whole prompt', () => {
  assert.equal(topicOf('Write a story about lighthouse keepers.'), 'lighthouse keepers');
  assert.equal(topicOf('Owls at night'), 'Owls at night');
  assert.equal(topicOf('Roll dice for me'), 'Roll dice for me');
  assert.equal(topicOf('Search the web for news about tidal power, please.'), 'tidal power, please');
});

test('the same request gives the same reply, ids included', () => {
  const body = { messages: [{ role: 'user', content: 'Translate the stock report' }], tools: TOOLS };
  assert.deepEqual(replyTo(request(body)), replyTo(request(body)));
  assert.notEqual(replyTo(request(body)).toolCalls[0]?.id, replyTo(request(body)).toolCalls[1]?.id);
});

test('a tool schema with too many properties, or two tools of one name, are refused', () => {
  const wide = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`p${i}`, { type: 'string' }]));
  const result = chatCompletionRequest().safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [tool('t', 'd', { type: 'object', properties: wide })] });
  assert.equal(result.success, false);
  assert.match(JSON.stringify(result.error?.issues), /at most 64 properties/);
  const duplicate = chatCompletionRequest().safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [tool('t', 'd'), tool('t', 'e')] });
  assert.equal(duplicate.success, false);
});

test('response_format json_schema gets JSON built from the schema alone, each tool result an item, whatever the instructions say', () => {
  const schema = { type: 'object', required: ['headline', 'items', 'count'], properties: { headline: { type: 'string' }, items: { type: 'array', items: { type: 'object', required: ['name', 'note'], properties: { name: { type: 'string' }, note: { type: 'string' } } } }, count: { type: 'integer' }, extra: { type: 'string' } } };
  const reply = replyTo(request({
    messages: [
      { role: 'system', content: 'Answer in prose, never in JSON.' },
      { role: 'user', content: 'Roll dice' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'roll_dice', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'four and six' },
    ],
    tools: TOOLS,
    response_format: { type: 'json_schema', json_schema: { name: 'dice', schema, strict: false } },
  }));
  assert.deepEqual(JSON.parse(reply.content ?? ''), { headline: 'Summary of 1 tool result about Roll dice.', items: [{ name: 'roll_dice', note: 'four and six' }], count: 1 });
});

test('response_format json_schema without its json_schema, or with a name OpenAI refuses, is a bad request', () => {
  assert.throws(() => request({ messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema' } }), /json_schema/);
  assert.throws(() => request({ messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'no spaces', schema: {} } } }), /schema name/);
});
