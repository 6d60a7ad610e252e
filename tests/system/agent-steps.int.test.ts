/**
 * Agent steps end to end on the offline model: the model chooses tools, each call is a job, the
 * transcript is in the run, and its events tell the conversation as it happens.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { finishedRun, putPipeline, registerPipeline, startRun, stageOf } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'agent-steps', metricSeries: {} });
});
after(() => stack.close());

interface AgentStage {
  name: string;
  agent?: { model: string; turns: number; usage: { prompt_tokens: number; completion_tokens: number }; messages: { role: string; tool_calls?: { tool: string }[]; tool?: string; is_error?: boolean; content?: string | null }[] };
}

test('the shipped research agent calls the story tools its model chose and answers with findings that fit its schema', async () => {
  const runId = await startRun(stack, 'research-agent', { topic: 'the history of tea' });
  const run = await finishedRun(stack, runId, 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const result = run.result as { answer: string; sources: { tool: string; summary: string }[] };
  assert.match(result.answer, /tea/);
  assert.deepEqual(result.sources.map((s) => s.tool).sort(), ['generate_structured_outline', 'search_relevant_information']);
  const stage = stageOf(run, 'research') as unknown as AgentStage;
  assert.ok(stage.agent, 'the stage shows its transcript');
  assert.equal(stage.agent.turns, 2);
  assert.deepEqual(stage.agent.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
  assert.ok(stage.agent.usage.prompt_tokens > 0 && stage.agent.usage.completion_tokens > 0);
});

test('a run of an agent tells its turns, tool calls, results and streamed answer as events', async () => {
  const runId = await startRun(stack, 'research-agent', { topic: 'lighthouses' });
  const res = await stack.request(`/v1/runs/${runId}/events`);
  const events = await readSse(res, (event) => event.event === 'done');
  const names = events.map((e) => e.event);
  for (const name of ['turn', 'tool_call', 'tool_result', 'content', 'done']) assert.ok(names.includes(name), `a ${name} event (got ${names.join(', ')})`);
  const calls = events.filter((e) => e.event === 'tool_call').map((e) => JSON.parse(e.data) as { call_id: string; tool: string });
  const results = events.filter((e) => e.event === 'tool_result').map((e) => JSON.parse(e.data) as { call_id: string; is_error: boolean });
  assert.deepEqual(results.map((r) => r.call_id).sort(), calls.map((c) => c.call_id).sort());
  assert.ok(names.indexOf('tool_call') < names.indexOf('tool_result'));
});

test('registration refuses an agent with an unknown tool, model, pipeline or MCP server, each at its place', async () => {
  const { status, body } = await putPipeline(stack, {
    name: 'bad-agent',
    steps: {
      ask: {
        agent: {
          model: 'nonesuch',
          prompt: "'hello'",
          tools: ['no_such_tool', { pipeline: 'no-such-pipeline' }, { mcp: 'nowhere', tool: 'x' }, 'search_relevant_information', 'search_relevant_information'],
        },
      },
    },
  });
  assert.equal(status, 400);
  const paths = (body.error?.details.problems ?? []).map((p) => p.path).sort();
  assert.deepEqual(paths, ['steps.ask.agent.model', 'steps.ask.agent.tools.0', 'steps.ask.agent.tools.1.pipeline', 'steps.ask.agent.tools.2.mcp', 'steps.ask.agent.tools.4'].sort(), JSON.stringify(body.error?.details.problems));
});

test('an agent with no output_schema answers with its text', async () => {
  await registerPipeline(stack, {
    name: 'agent-answers-text',
    steps: { ask: { agent: { prompt: "'Search for relevant information about ' & input.topic", tools: ['search_relevant_information'] } } },
  });
  const runId = await startRun(stack, 'agent-answers-text', { topic: 'kites' });
  const run = await finishedRun(stack, runId, 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.match(String((run.result as { ask: unknown }).ask), /kites/);
});

test('a pipeline as an agent tool runs as a child run, linked to its parent, and its result is the call result', async () => {
  await registerPipeline(stack, {
    name: 'story-agent',
    input: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
    steps: { tell: { agent: { prompt: "'Write a story about ' & input.topic", tools: [{ pipeline: 'story' }], max_turns: 3 } } },
    output: 'steps.tell',
  });
  const run = await finishedRun(stack, await startRun(stack, 'story-agent', { topic: 'a lighthouse' }), 90_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const stage = stageOf(run, 'tell') as unknown as { agent: { messages: { role: string; content?: string; is_error?: boolean }[] } };
  const result = stage.agent.messages.find((m) => m.role === 'tool');
  assert.equal(result?.is_error, false, result?.content);
  // A story is longer than a tool result is kept (16 KiB): its start names the child run and its title.
  const [, childId] = /^\{"run_id":"(run_[0-9a-f]{32})","status":"completed","result":\{"title":"[^"]+"/.exec(result?.content ?? '') ?? [];
  assert.ok(childId, result?.content?.slice(0, 200));
  const childRun = await stack.json<{ status: string; pipeline: { name: string }; parent?: { run_id: string; stage: string } }>(`/v1/runs/${childId}`);
  assert.equal(childRun.body.status, 'completed');
  assert.equal(childRun.body.pipeline.name, 'story');
  assert.deepEqual(childRun.body.parent, { run_id: run.run_id, stage: 'tell' });
  // The listing tells a child from a top-level run as its view does.
  const listed = (await stack.json<{ runs: { run_id: string; parent?: unknown }[] }>('/v1/runs?limit=200')).body.runs;
  assert.deepEqual(listed.find((r) => r.run_id === childId)?.parent, childRun.body.parent);
  assert.equal(listed.find((r) => r.run_id === run.run_id)?.parent, undefined);
});

test("the workers' metrics count agent tokens by model and kind, model-call latency, and tool calls by tool and outcome", async () => {
  await finishedRun(stack, await startRun(stack, 'research-agent', { topic: 'sundials' }), 60_000);
  const text = await (stack.workerMetrics?.registry.metrics() ?? Promise.resolve(''));
  assert.match(text, /switchyard_agent_tokens_total\{model="default",kind="prompt"\} [1-9]/);
  assert.match(text, /switchyard_agent_tokens_total\{model="default",kind="completion"\} [1-9]/);
  assert.match(text, /switchyard_agent_model_call_seconds_count\{model="default",outcome="ok"\} [1-9]/);
  assert.match(text, /switchyard_agent_tool_calls_total\{tool="search_relevant_information",outcome="ok"\} [1-9]/);
});

test("the README's approval example: the outline waits in the inbox until a person approves it, then the run completes", async () => {
  const text = readFileSync(fileURLToPath(new URL('../../docs/pipelines/guarded-research.yaml', import.meta.url)), 'utf8');
  const put = await stack.request('/v1/pipelines/guarded-research', { method: 'PUT', body: text, headers: { 'content-type': 'application/yaml' } });
  assert.ok(put.status === 201 || put.status === 200, await put.text());
  const runId = await startRun(stack, 'guarded-research', { topic: 'tea' });
  const waiting = async () => (await stack.json<{ items: { run_id: string; tool: string; reason: string | null; answer_url: string }[] }>('/v1/inbox')).body.items.filter((i) => i.run_id === runId);
  let items = await waiting();
  for (const deadline = Date.now() + 30_000; items.length === 0 && Date.now() < deadline; items = await waiting()) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(items.map((i) => i.tool), ['generate_structured_outline']);
  assert.equal((await stack.json<{ status: string }>(`/v1/runs/${runId}`)).body.status, 'waiting');
  const answer = await stack.json(items[0]?.answer_url ?? '', { method: 'POST', body: JSON.stringify({ approve: true }) });
  assert.equal(answer.status, 202);
  const run = await finishedRun(stack, runId, 60_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.deepEqual((run.result as { sources: { tool: string }[] }).sources.map((s) => s.tool).sort(), ['generate_structured_outline', 'search_relevant_information']);
});
