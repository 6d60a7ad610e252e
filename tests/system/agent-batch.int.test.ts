/**
 * A batch of 100 agent runs through `POST /v1/batches` (issue #34): every run of the shipped
 * research agent completes on the offline model, every transcript is whole (each tool call the
 * model asked for has exactly one result), and the tool services were called once per call. Prints
 * the batch's duration and the runs' turns and tool calls.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, test } from 'node:test';
import { startTestStack, TOOL_KEY, waitFor, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

const RUNS = 100;
const BATCH_TIMEOUT_MS = 240_000;

interface TranscriptMessage {
  role: string;
  call_id?: string;
  tool_calls?: { id: string; tool: string }[];
}

interface AgentRun {
  run_id: string;
  status: string;
  error: unknown;
  stages: { name: string; agent?: { turns: number; messages: TranscriptMessage[] } }[];
}

let stack: TestStack;
before(async () => {
  stack = await startTestStack({ label: 'agent-batch' });
});
after(() => stack.close());

/** POST /run/{tool} requests each tool service answered `ok`, summed over the services (from their /metrics). */
async function toolRequestsAnswered(): Promise<number> {
  let total = 0;
  for (const service of Object.values(stack.tools.services)) {
    const text = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${TOOL_KEY}` } })).text();
    for (const match of text.matchAll(/^switchyard_tool_requests_total\{[^}]*outcome="ok"[^}]*\} (\d+)$/gm)) total += Number(match[1]);
  }
  return total;
}

/** The calls of a transcript whose results are not exactly one (missing or repeated), by call id. */
function unansweredOrRepeated(messages: readonly TranscriptMessage[]): Record<string, number> {
  const results = new Map<string, number>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) results.set(call.id, results.get(call.id) ?? 0);
    if (message.role === 'tool' && message.call_id) results.set(message.call_id, (results.get(message.call_id) ?? 0) + 1);
  }
  return Object.fromEntries([...results].filter(([, n]) => n !== 1));
}

test('a batch of 100 research-agent runs completes, each transcript whole and each tool called once per call', { timeout: BATCH_TIMEOUT_MS + 60_000 }, async () => {
  const toolsBefore = await toolRequestsAnswered();
  const turnsBefore = stack.tools.model.stats.completions;
  const items = Array.from({ length: RUNS }, (_, i) => ({ topic: `tide pools, question ${i}` }));
  const started = performance.now();
  const accepted = await stack.json<{ batch_id: string; run_ids: string[] }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'research-agent', items }) });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  assert.equal(accepted.body.run_ids.length, RUNS);

  const batch = await waitFor(
    async () => (await stack.json<{ status: string; counts: Record<string, number> }>(`/v1/batches/${accepted.body.batch_id}?limit=1`)).body,
    (view) => view.status === 'done',
    'the batch has ended',
    BATCH_TIMEOUT_MS,
  );
  const seconds = (performance.now() - started) / 1000;
  assert.deepEqual(batch.counts, { queued: 0, running: 0, waiting: 0, completed: RUNS, failed: 0, cancelled: 0 }, 'every run completed');

  const runs = await Promise.all(accepted.body.run_ids.map(async (id) => (await stack.json<AgentRun>(`/v1/runs/${id}`)).body));
  const perRun = runs.map((run) => {
    const agent = run.stages.find((stage) => stage.name === 'research')?.agent;
    assert.ok(agent, `run ${run.run_id} shows its transcript`);
    assert.deepEqual(unansweredOrRepeated(agent.messages), {}, `run ${run.run_id}: each tool call has exactly one result`);
    const calls = agent.messages.reduce((sum, m) => sum + (m.tool_calls?.length ?? 0), 0);
    return { turns: agent.turns, calls };
  });
  const totalTurns = perRun.reduce((sum, r) => sum + r.turns, 0);
  const totalCalls = perRun.reduce((sum, r) => sum + r.calls, 0);
  const spread = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
  process.stdout.write(
    `# ${JSON.stringify({ runs: RUNS, seconds: Math.round(seconds * 10) / 10, turns_per_run: spread(perRun.map((r) => r.turns)), tool_calls_per_run: spread(perRun.map((r) => r.calls)), turns: totalTurns, tool_calls: totalCalls, load_avg_1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100 })}\n`,
  );
  assert.ok(totalCalls >= RUNS, 'the model called tools in every run');
  // Not a call made twice: the services answered as many calls as the transcripts hold, the model as many turns.
  assert.equal((await toolRequestsAnswered()) - toolsBefore, totalCalls);
  assert.equal(stack.tools.model.stats.completions - turnsBefore, totalTurns);
});
