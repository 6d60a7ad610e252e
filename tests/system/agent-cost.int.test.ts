/**
 * What agents cost: each turn priced by its model's prices (USD per million tokens), summed per
 * stage and run in the API and by model in /metrics; `max_cost` bounds each turn's `max_tokens` and
 * fails the step with agent_cost_exceeded, never past it; a `max_cost` on a model with no prices
 * fails clearly. A batch sums its ended runs' costs (API, CLI, /metrics); a pipeline's `max_cost`
 * bounds its agents together and fails the run with run_cost_exceeded.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ModelClient } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel, type ScriptedRequest } from '@switchyard/models/testing';
import { cliEnv, runCli } from '../../packages/cli/src/testing.js';
import { launchBrowser, signIn, withPage } from '../../services/orchestrator/src/dashboard/testing/browser.js';
import { finishedRun, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

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

test("a batch's view, its listing, the CLI, the dashboard and /metrics give what its runs' agents cost, each run counted as it ends", async (t) => {
  await registerPipeline(stack, pipeline('costed-batch', {}));
  const started = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'costed-batch', items: [{}, {}, {}] }) });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const batchId = started.body.batch_id;
  const view = await waitFor(async () => (await stack.json<{ status: string; cost_usd: number; counts: Record<string, number> }>(`/v1/batches/${batchId}`)).body, (b) => b.status === 'done', 'the batch ends', 60_000);
  assert.equal(view.counts.completed, 3, JSON.stringify(view));
  close(view.cost_usd, 3 * 0.0075);
  const listed = (await stack.json<{ batches: { batch_id: string; cost_usd: number }[] }>('/v1/batches?limit=20')).body.batches.find((b) => b.batch_id === batchId);
  close(listed?.cost_usd, 3 * 0.0075);
  const shown = await runCli(['batches', 'show', batchId], { env: cliEnv({ SWITCHYARD_URL: stack.api.url, SWITCHYARD_KEY: TEST_API_KEY }) });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^cost +\$0\.0225 /m);
  const text = await (stack.workerMetrics?.registry.metrics() ?? Promise.resolve(''));
  const [, counted] = /switchyard_runs_cost_usd_total\{pipeline="(?:costed-batch|other)",batch="true"\} ([0-9.e-]+)/.exec(text) ?? [];
  assert.ok(Math.abs(Number(counted) - 0.0225) < 1e-9, `metrics counted ${counted} for batch runs`);
  const browser = await launchBrowser();
  t.after(() => browser.close());
  await withPage(t, browser, async (page) => {
    await signIn(page, { url: stack.api.url, key: TEST_API_KEY });
    await page.getByRole('heading', { name: 'Runs' }).waitFor();
    await page.goto(`${stack.api.url}/#/batches`);
    await page.getByRole('heading', { name: 'Batches' }).waitFor();
    await page.locator(`[data-batch-id="${batchId}"] .batch-cost`, { hasText: '$0.0225' }).waitFor();
    await page.goto(`${stack.api.url}/#/batches/${batchId}`);
    await page.locator('.batch-cost', { hasText: '$0.0225' }).waitFor();
  });
  const [, single] = /switchyard_runs_cost_usd_total\{pipeline="(?:costed|other)",batch="false"\} ([0-9.e-]+)/.exec(text) ?? [];
  assert.ok(Number(single) >= 0.0075 - 1e-9, `metrics counted ${single} for single runs`);
});

test("a pipeline's max_cost bounds its agents together: the second agent's reply is bounded by what the first left, and the run fails with run_cost_exceeded, never past it", async () => {
  const maxCost = 0.0008; // the first agent's turn costs $0.00053 (15 prompt, 50 reply tokens), leaving room for about 24 reply tokens
  await registerPipeline(stack, {
    name: 'run-capped',
    max_cost: maxCost,
    steps: {
      first: { agent: { prompt: "'runcap-1: tell me about tea'" } },
      second: { needs: ['first'], agent: { prompt: "'runcap-2: tell me about tea'" } },
    },
  });
  const run = await finishedRun(stack, await startRun(stack, 'run-capped', {}), 30_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'run_cost_exceeded', JSON.stringify(run.error));
  assert.match(run.error?.message ?? '', /the run's max_cost of \$0\.0008/);
  assert.equal(stageOf(run, 'first')?.status, 'completed');
  assert.equal(stageOf(run, 'second')?.status, 'failed');
  const second = model.requests.filter((r) => /runcap-2:/.test(openingOf(r)));
  console.log(`# run max_cost $${maxCost}: the second agent was sent max_tokens ${second.map((r) => r.maxTokens).join(', ')}; the run cost $${(run as unknown as { cost_usd?: number }).cost_usd}`);
  assert.equal(second.length, 1);
  assert.ok((second[0]?.maxTokens ?? Infinity) < 50 && (second[0]?.maxTokens ?? 0) > 0, 'its reply was bounded by the cost the run had left');
  const cost = (run as unknown as { cost_usd?: number }).cost_usd ?? Infinity;
  assert.ok(cost <= maxCost + 1e-12, `the run cost ${cost}, within ${maxCost}`);
});
