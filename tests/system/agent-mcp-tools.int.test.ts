/**
 * An agent whose tool is a tool of an MCP server: Switchyard's own bridge, configured for the
 * workers as an MCP server (what MCP_SERVERS does), serving graph-RAG over a small sample
 * repository. The model (scripted) asks `ci_graph_rag` a question and answers with what it found.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { McpToolSource } from '@switchyard/mcp-tools';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { freePort } from '@switchyard/redis';
import { codeIntelSuite, startBridgeHttp, type RunningBridge } from '@switchyard/mcp-bridge';
import { finishedRun, putPipeline, registerPipeline, startRun, stageOf } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const SAMPLE_REPO = fileURLToPath(new URL('../../packages/code-intel/fixtures/sample-repo', import.meta.url));
let model: ScriptedModel;
let stack: TestStack;
let bridge: RunningBridge;

before(async () => {
  model = await startScriptedModel({
    script: (request) => {
      const result = request.messages.find((m) => m.role === 'tool');
      if (result) return { content: `found: ${String(result.content).slice(0, 2000)}` };
      return { toolCalls: [{ name: 'ci_graph_rag', arguments: JSON.stringify({ query: 'where are orders priced', fusion_depth: 1 }) }] };
    },
  });
  // The bridge needs the stack's Redis, and the workers need the bridge's address: a port is chosen first.
  const port = await freePort();
  // `down` is configured but never listens: its tools can only be checked when called.
  const downPort = await freePort();
  const mcp = new Map([
    ['switchyard', new McpToolSource({ name: 'switchyard', server: { url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: `Bearer ${TEST_API_KEY}` } } })],
    ['down', new McpToolSource({ name: 'down', server: { url: `http://127.0.0.1:${downPort}/mcp` }, retry: { retries: 0 } })],
  ]);
  const models = new ModelClient({ models: new Map([['default', { name: 'default', baseUrl: model.baseUrl, model: 'scripted' }]]) });
  stack = await startTestStack({ label: 'agent-mcp-tools', agents: { models, mcp } });
  bridge = await startBridgeHttp({ port, redisUrl: stack.redisUrl, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, extraSuites: [codeIntelSuite({ root: SAMPLE_REPO, dataDir: null, ckb: { enabled: false } })], logger: createLogger({ name: 'agent-mcp-bridge', level: 'silent' }) });
});
after(async () => {
  await stack?.close();
  await bridge?.close();
  await model?.close();
});

test("an agent calls ci_graph_rag on Switchyard's own MCP bridge, configured as an MCP server, and answers with its candidates", async () => {
  await registerPipeline(stack, {
    name: 'code-asker',
    steps: { ask: { agent: { prompt: "'Where are orders priced?'", tools: [{ mcp: 'switchyard', tool: 'ci_graph_rag' }] } } },
    output: 'steps.ask',
  });
  const run = await finishedRun(stack, await startRun(stack, 'code-asker', {}), 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.match(String(run.result), /^found: /);
  assert.match(String(run.result), /candidates/);
  const request = model.requests[0];
  const offered = request?.tools.find((tool) => tool.name === 'ci_graph_rag');
  assert.ok(offered, 'the model was offered the bridge tool, with its schema');
  assert.equal((offered.parameters as { type?: string }).type, 'object');
  const agent = (stageOf(run, 'ask') as unknown as { agent: { messages: { role: string; is_error?: boolean }[] } }).agent;
  assert.equal(agent.messages.filter((m) => m.role === 'tool' && !m.is_error).length, 1);
});

test('registration refuses an MCP server the deployment does not configure', async () => {
  const { status, body } = await putPipeline(stack, { name: 'code-asker-elsewhere', steps: { ask: { agent: { prompt: "'x'", tools: [{ mcp: 'elsewhere', tool: 'ci_graph_rag' }] } } } });
  assert.equal(status, 400);
  assert.match(JSON.stringify(body.error?.details.problems), /no MCP server elsewhere is configured \(configured: switchyard/);
});

test('registration refuses a tool its configured MCP server does not list, naming what it lists', async () => {
  const { status, body } = await putPipeline(stack, { name: 'code-asker-typo', steps: { ask: { agent: { prompt: "'x'", tools: [{ mcp: 'switchyard', tool: 'ci_graph_rag' }, { mcp: 'switchyard', tool: 'ci_graph_rags' }] } } } });
  assert.equal(status, 400, JSON.stringify(body));
  const problems = body.error?.details.problems ?? [];
  assert.deepEqual(problems.map((p) => p.path), ['steps.ask.agent.tools.1.tool'], JSON.stringify(problems));
  assert.match(problems[0]?.message ?? '', /^MCP server switchyard lists no tool ci_graph_rags \(it lists: .*ci_graph_rag/);
  assert.equal((await stack.json('/v1/pipelines/code-asker-typo')).status, 404, 'nothing was stored');
});

test('a tool of an MCP server that cannot be asked is accepted at registration, to be checked when called', async () => {
  const { status, body } = await putPipeline(stack, { name: 'code-asker-down', steps: { ask: { agent: { prompt: "'x'", tools: [{ mcp: 'down', tool: 'anything' }] } } } });
  assert.equal(status, 201, JSON.stringify(body));
});
