/**
 * What agents cost: each turn priced by its model's prices (USD per million tokens), summed per
 * stage and run in the API and by model in /metrics; `max_cost` bounds each turn's `max_tokens` and
 * fails the step with agent_cost_exceeded, never past it; a `max_cost` on a model with no prices
 * fails clearly.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from '@switchyard/models/testing';
import { cliEnv, runCli } from '../../packages/cli/src/testing.js';
import { finishedRun, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const PRICES = { input: 2, cachedInput: 0.5, output: 10 };
let model: ScriptedModel;
let stack: TestStack;
const openingOf = (request: ScriptedRequest) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');

before(async () => {
  // Turn 1 asks for a search (1,000 prompt and 100 completion tokens), turn 2 answers (2,000 and 50, or less when bounded).
  model = await startScriptedModel({
    script: (request) => {
      const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
      const max = request.maxTokens ?? Infinity;
      // One turn, no tools: 15 prompt tokens (what the engine estimates), 50 of reply unless bounded.
      if (request.tools.length === 0) return { content: 'Tea is old.', usage: { promptTokens: 15, completionTokens: Math.min(50, max) }, finishReason: max < 50 ? 'length' : 'stop' };
      if (turn === 1) return { toolCalls: [{ name: 'search_relevant_information', arguments: '{"topic":"tea"}' }], usage: { promptTokens: 1000, completionTokens: 100 } };
      return { content: 'Tea is old.', usage: { promptTokens: 2000, completionTokens: Math.min(50, max) }, finishReason: max < 50 ? 'length' : 'stop' };
    },
  });
  const models = new ModelClient({
    models: new Map([
      ['default', { name: 'default', baseUrl: model.baseUrl, model: 'priced', prices: PRICES }],
      ['free', { name: 'free', baseUrl: model.baseUrl, model: 'unpriced' }],
    ]),
    baseBackoffMs: 20,
  });
  stack = await startTestStack({ label: 'agent-cost', agents: { models, modelNames: ['default', 'free'] }, metricSeries: {} });
});
after(async () => {
  await stack.close();
  await model.close();
});

const pipeline = (name: string, agent: Record<string, unknown>) => ({ name, steps: { think: { agent: { prompt: `'${name}: tell me about tea'`, tools: ['search_relevant_information'], ...agent } } } });
interface Costed {
  cost_usd: number;
  messages: { role: string; cost_usd?: number }[];
}
const agentOf = (run: RunBody) => (stageOf(run, 'think') as unknown as { agent: Costed }).agent;
const close = (actual: number | undefined, expected: number) => assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9, `${actual} ≈ ${expected}`);

test("each turn, the stage and the run show what they cost by the model's prices, and /metrics counts it by model", async () => {
  await registerPipeline(stack, pipeline('costed', {}));
  const run = await finishedRun(stack, await startRun(stack, 'costed', {}), 30_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const agent = agentOf(run);
  const turns = agent.messages.filter((m) => m.role === 'assistant').map((m) => m.cost_usd);
  close(turns[0], (1000 * 2 + 100 * 10) / 1e6);
  close(turns[1], (2000 * 2 + 50 * 10) / 1e6);
  close(agent.cost_usd, 0.0075);
  close((run as unknown as { cost_usd?: number }).cost_usd, 0.0075);
  const text = await (stack.workerMetrics?.registry.metrics() ?? Promise.resolve(''));
  const [, counted] = /switchyard_agent_cost_usd_total\{model="default"\} ([0-9.e-]+)/.exec(text) ?? [];
  assert.ok(Number(counted) >= 0.0075 - 1e-9, `metrics counted ${counted}`);
  const shown = await runCli(['runs', 'show', run.run_id], { env: cliEnv({ SWITCHYARD_URL: stack.api.url, SWITCHYARD_KEY: TEST_API_KEY }) });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^cost +\$0\.007500$/m);
  assert.match(shown.stdout, /^STAGE +STATUS +ATTEMPTS +TOKENS +COST/m);
  assert.match(shown.stdout, /^think +completed +1 +3150 +\$0\.007500/m);
});

test('max_cost sets the reply bound of each turn and fails the step with agent_cost_exceeded, never past it', async () => {
  const maxCost = 0.0003; // its prompt (15 tokens at $2/M) leaves room for 27 reply tokens at $10/M
  await registerPipeline(stack, { name: 'capped', steps: { think: { agent: { prompt: "'capped: tell me about tea'", max_cost: maxCost } } } });
  const run = await finishedRun(stack, await startRun(stack, 'capped', {}), 30_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'agent_cost_exceeded', JSON.stringify(run.error));
  const agent = agentOf(run);
  assert.ok(agent.cost_usd <= maxCost + 1e-12, `cost ${agent.cost_usd} within ${maxCost}`);
  const asked = model.requests.filter((r) => /capped:/.test(openingOf(r)));
  console.log(`# max_cost $${maxCost}: turns sent max_tokens ${asked.map((r) => r.maxTokens).join(', ')}; cost $${agent.cost_usd}`);
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.maxTokens, 27, 'the turn was bounded by the cost left');
  assert.match(run.error?.message ?? '', /reaching its max_cost of \$0\.0003/);
});

test('max_cost on a model with no prices fails the step with agent_cost_unknown before the model is asked', async () => {
  await registerPipeline(stack, pipeline('unpriced', { model: 'free', max_cost: 1 }));
  const run = await finishedRun(stack, await startRun(stack, 'unpriced', {}), 30_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'agent_cost_unknown');
  assert.match(run.error?.message ?? '', /MODELS\.free\.prices/);
  assert.equal(model.requests.filter((r) => /unpriced:/.test(openingOf(r))).length, 0);
});
