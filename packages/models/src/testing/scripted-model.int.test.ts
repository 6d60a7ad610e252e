/**
 * The scripted model's own wire format, read raw over HTTP: the JSON answer with tool calls, the
 * OpenAI error shape with Retry-After, and its bound on a request body.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';

let model: ScriptedModel;

before(async () => {
  model = await startScriptedModel({
    maxBodyBytes: 64 * 1024,
    script: (request) => (request.messages.length > 1 ? { status: 503, retryAfterMs: 1500 } : { content: 'Two calls.', toolCalls: [{ name: 'a', arguments: '{"x":1}' }, { name: 'b', arguments: '{}' }], usage: { promptTokens: 5, completionTokens: 3 } }),
  });
});
after(() => model.close());

const post = (body: unknown) => fetch(`${model.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

test('a request without stream gets one chat.completion with its text, tool calls and usage, and is logged', async () => {
  const res = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'a', parameters: { type: 'object' } } }] });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { object: string; choices: { message: { content: string; tool_calls: { id: string; function: { name: string; arguments: string } }[] }; finish_reason: string }[]; usage: { total_tokens: number } };
  assert.equal(body.object, 'chat.completion');
  assert.equal(body.choices[0]?.message.content, 'Two calls.');
  assert.deepEqual(body.choices[0]?.message.tool_calls.map((call) => [call.function.name, call.function.arguments]), [['a', '{"x":1}'], ['b', '{}']]);
  assert.equal(body.choices[0]?.finish_reason, 'tool_calls');
  assert.equal(body.usage.total_tokens, 8);
  assert.equal(model.requests.at(-1)?.stream, false);
  assert.deepEqual(model.requests.at(-1)?.tools.map((tool) => tool.name), ['a']);
});

test('a scripted failure answers its status in OpenAI\'s error shape, with retry-after-ms and Retry-After in seconds', async () => {
  const res = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'user', content: 'again' }] });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after-ms'), '1500');
  assert.equal(res.headers.get('retry-after'), '2');
  const body = (await res.json()) as { error: { type: string } };
  assert.equal(body.error.type, 'server_error');
});

test('a body over its bound answers 413 without being read whole, and the model answers others meanwhile', async () => {
  const before = model.counters.requests;
  const [huge, small] = await Promise.all([post({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] }), post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })]);
  assert.equal(huge.status, 413);
  assert.equal(small.status, 200);
  assert.equal(model.counters.requests, before + 1, 'the refused body never reached the script');
});
