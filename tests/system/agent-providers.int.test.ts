/**
 * One agent pipeline, the shipped research agent, run on an OpenAI-compatible model and on a model
 * speaking Anthropic's Messages API (the same offline model through its two doors): the same
 * events, the same transcript shape, the same tokens counted against the same budget, the same
 * failure when that budget is short.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { finishedRun, registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

let stack: TestStack;
const shipped = parse(readFileSync(fileURLToPath(new URL('../../pipelines/research-agent.yaml', import.meta.url)), 'utf8')) as { name: string; steps: { research: { agent: Record<string, unknown> } } };

before(async () => {
  stack = await startTestStack({ label: 'agent-providers', agents: { anthropicModels: ['claude'] } });
});
after(() => stack.close());

/** The shipped definition on `model`, under its own name, with `agent` fields changed. */
async function registerOn(name: string, model: string, agent: Record<string, unknown> = {}): Promise<void> {
  await registerPipeline(stack, { ...shipped, name, steps: { research: { agent: { ...shipped.steps.research.agent, model, ...agent } } } });
}

interface Observed {
  run: RunBody;
  /** The events but `content`, each its name and its data without ids and times. */
  events: unknown[];
  /** The streamed text, joined (its events are gathered by time, so their number varies). */
  streamed: string;
}

/** Each value once, at its first place. */
const distinct = <T,>(values: readonly T[]): T[] => [...new Map(values.map((value) => [JSON.stringify(value), value])).values()];

type Told = { event: string | undefined } & Record<string, unknown>;

/**
 * The events with each run of consecutive `tool_result`s in the order of their tools: a turn's
 * calls run at once, and which answers first says how the jobs were scheduled, not the provider.
 */
function resultsInToolOrder(events: readonly Told[]): Told[] {
  const ordered: Told[] = [];
  let results: Told[] = [];
  const flush = () => {
    ordered.push(...results.sort((a, b) => String(a.tool).localeCompare(String(b.tool))));
    results = [];
  };
  for (const event of events) {
    if (event.event === 'tool_result') results.push(event);
    else {
      flush();
      ordered.push(event);
    }
  }
  flush();
  return ordered;
}

async function observe(pipeline: string): Promise<Observed> {
  const runId = await startRun(stack, pipeline, { topic: 'the history of tea' });
  const events = await readSse(await stack.request(`/v1/runs/${runId}/events`), (event) => event.event === 'done');
  const run = await finishedRun(stack, runId, 60_000);
  const data = events.map((event) => ({ event: event.event, data: JSON.parse(event.data) as Record<string, unknown> }));
  const sameEverywhere = ({ event, data: { call_id: _c, run_id: _r, at: _a, timestamp: _t, ts: _ts, ...rest } }: { event: string | undefined; data: Record<string, unknown> }): Told => ({ event, ...rest });
  return {
    run,
    // A stage's `running` event is written only once it has lasted 250 ms (RUNNING_EVENT_DELAY_MS) or
    // when its job is taken over: whether there is one says how loaded the machine was, not the provider.
    events: resultsInToolOrder(distinct(data.filter((e) => e.event !== 'content' && e.event !== 'heartbeat' && !(e.event === 'stage' && e.data.status === 'running')).map(sameEverywhere))),
    streamed: data.filter((e) => e.event === 'content').map((e) => String(e.data.chunk)).join(''),
  };
}

interface AgentView {
  model: string;
  turns: number;
  usage: { prompt_tokens: number; completion_tokens: number };
  messages: { role: string; tool?: string; is_error?: boolean; tool_calls?: { tool: string; arguments: string }[]; usage?: unknown; content?: string | null }[];
}
const agentOf = (run: RunBody) => (stageOf(run, 'research') as unknown as { agent: AgentView }).agent;
const shape = (agent: AgentView) => agent.messages.map((m) => ({ role: m.role, tool: m.tool, is_error: m.is_error, calls: m.tool_calls?.map((c) => [c.tool, c.arguments]), usage: m.usage, content: m.content }));

test('the research agent on an OpenAI-compatible and an Anthropic model gives the same events, transcript shape, tokens and answer', async () => {
  await registerOn('research-openai', 'default');
  await registerOn('research-anthropic', 'claude');
  const openai = await observe('research-openai');
  const anthropic = await observe('research-anthropic');
  assert.equal(openai.run.status, 'completed', JSON.stringify(openai.run.error));
  assert.equal(anthropic.run.status, 'completed', JSON.stringify(anthropic.run.error));
  assert.deepEqual(anthropic.run.result, openai.run.result);
  assert.deepEqual(anthropic.events, openai.events);
  assert.equal(anthropic.streamed, openai.streamed);
  const [a, o] = [agentOf(anthropic.run), agentOf(openai.run)];
  assert.deepEqual([a.model, o.model], ['claude', 'default']);
  assert.deepEqual(shape(a), shape(o));
  assert.deepEqual(a.usage, o.usage);
  console.log(`# both providers: ${o.turns} turns, ${o.usage.prompt_tokens} prompt and ${o.usage.completion_tokens} completion tokens, ${openai.events.length} events besides content`);
});

test('a budget too short for the answer ends both the same way: agent_tokens_exceeded, at the same tokens, never past the budget', async () => {
  const budget = 450;
  await registerOn('short-openai', 'default', { max_tokens: budget });
  await registerOn('short-anthropic', 'claude', { max_tokens: budget });
  const openai = await observe('short-openai');
  const anthropic = await observe('short-anthropic');
  for (const observed of [openai, anthropic]) {
    assert.equal(observed.run.status, 'failed');
    assert.equal(observed.run.error?.code, 'agent_tokens_exceeded');
    const usage = agentOf(observed.run).usage;
    assert.ok(usage.prompt_tokens + usage.completion_tokens <= budget, JSON.stringify(usage));
  }
  console.log(`# a ${budget}-token budget on both: ${openai.run.error?.message ?? ""}`);
  const details = (observed: Observed) => (observed.run.error as { details?: unknown } | undefined)?.details;
  assert.deepEqual(details(anthropic), details(openai));
  assert.deepEqual(shape(agentOf(anthropic.run)), shape(agentOf(openai.run)));
  assert.deepEqual(anthropic.events, openai.events);
});
