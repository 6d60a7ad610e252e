/**
 * An agent pipeline as an MCP tool over Streamable HTTP: the shipped research agent on the offline
 * model, and an agent on a scripted stub model whose tool call fails. Progress notifications move
 * on with each turn, tool call and tool result, and the session's log tells the same lines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { startTestStack, TEST_API_KEY, type TestStack } from '@switchyard/orchestrator/testing';
import { startBridgeHttp, type RunningBridge } from './http/serve.js';
import { recordNotifications } from './testing/features.js';
import { waitFor } from './testing/journey.js';

let stack: TestStack;
let bridge: RunningBridge;
let model: ScriptedModel;

before(async () => {
  // Asks for a tool nobody has until it has read a tool's answer, then answers.
  model = await startScriptedModel({
    script: (request) => (request.messages.some((m) => m.role === 'tool') ? { content: 'The tool was missing; no findings.' } : { toolCalls: [{ name: 'consult_oracle', arguments: '{"question":"tides"}' }] }),
  });
  stack = await startTestStack({ label: 'mcp-agent-progress', agents: { moreModels: { scripted: model.baseUrl } } });
  bridge = await startBridgeHttp({ redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'mcp-agent-progress-test', level: 'silent' }) });
});
after(async () => {
  await bridge?.close();
  await stack?.close();
  await model?.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'agent-progress-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_API_KEY}` } } }));
  return client;
}

/** Calls a pipeline's tool once the session lists it, recording every progress notification. */
async function callWithProgress(client: Client, name: string, args: Record<string, unknown>) {
  await waitFor(`${name} listed`, async () => (await client.listTools()).tools.some((tool) => tool.name === name));
  const progress: Progress[] = [];
  const result = await client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => void progress.push(p) });
  return { result, progress, messages: progress.map((p) => p.message ?? '') };
}

const growing = (values: number[]) => values.every((value, i) => i === 0 || value > (values[i - 1] ?? Infinity));

test('the research agent as an MCP tool reports progress per turn, tool call and tool result, and answers its structured findings', async (t) => {
  const client = await connect();
  t.after(() => client.close());
  const { result, progress, messages } = await callWithProgress(client, 'pipeline_research-agent', { topic: 'the history of tea' });

  const answer = result.structuredContent as { status: string; timed_out: boolean; result: { answer: string; sources: { tool: string; summary: string }[] } };
  assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
  assert.equal(answer.status, 'completed');
  assert.equal(answer.timed_out, false);
  assert.match(answer.result.answer, /tea/);
  assert.deepEqual(answer.result.sources.map((s) => s.tool).sort(), ['generate_structured_outline', 'search_relevant_information']);

  // The offline model calls both tools in its first turn and answers in its second.
  for (const line of [
    /^research turn 1: the model asked for 2 tool calls \(\d+ tokens so far\)$/,
    /^research turn 1: called search_relevant_information$/,
    /^research turn 1: called generate_structured_outline$/,
    /^research turn 1: search_relevant_information answered$/,
    /^research turn 1: generate_structured_outline answered$/,
    /^research turn 2: the model answered \(\d+ tokens so far\)$/,
  ]) {
    assert.ok(messages.some((message) => line.test(message)), `a progress message matching ${line} (got ${JSON.stringify(messages)})`);
  }
  const turnAt = (n: number) => messages.findIndex((message) => message.startsWith(`research turn ${n}: the model`));
  assert.ok(turnAt(1) < messages.findIndex((m) => m.endsWith('search_relevant_information answered')) && messages.findIndex((m) => m.endsWith('answered')) < turnAt(2), 'in the order they happened');
  assert.ok(growing(progress.map((p) => p.progress)), `progress grows: ${progress.map((p) => p.progress).join(', ')}`);
  assert.equal(progress.at(-1)?.progress, 100, 'a completed run ends at 100');
});

test('a failed tool call of an agent is a progress message quoting why, and a warning in the session log', async (t) => {
  await stack.json('/v1/pipelines/oracle-agent', {
    method: 'PUT',
    body: JSON.stringify({
      name: 'oracle-agent',
      input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
      steps: { ask: { agent: { model: 'scripted', prompt: "'Ask the oracle about ' & input.topic", tools: ['search_relevant_information'], max_turns: 3 } } },
    }),
  });
  const client = await connect();
  t.after(() => client.close());
  const { messages: logged } = recordNotifications(client);
  await client.setLoggingLevel('info');
  const { result, messages } = await callWithProgress(client, 'pipeline_oracle-agent', { topic: 'tides' });

  assert.equal((result.structuredContent as { status: string }).status, 'completed', JSON.stringify(result.structuredContent));
  assert.ok(messages.includes('ask turn 1: called consult_oracle'), JSON.stringify(messages));
  assert.ok(messages.some((m) => /^ask turn 1: consult_oracle failed: error: there is no tool consult_oracle/.test(m)), JSON.stringify(messages));
  // The log messages of the run the session started say the same, a failed tool at warning.
  const line = await waitFor('the failed call in the log', () => logged.find((m) => String((m.data as { message?: string }).message).includes('consult_oracle failed')));
  assert.equal(line.level, 'warning');
  assert.equal((line.data as { is_error: boolean }).is_error, true);
  await waitFor('the answering turn in the log', () => logged.some((m) => m.level === 'info' && /^ask turn 2: the model answered/.test(String((m.data as { message?: string }).message))));
});
