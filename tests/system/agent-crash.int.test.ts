/**
 * Agents under repeated SIGKILL: fifty agent runs of five turns each (four of them asking for two
 * tool calls, so that the runs last through several kills) while a worker process is killed every few seconds and another started. Every run
 * must complete; the tool service counts any call made again after its result was recorded (none
 * may be) and the model counts the turns it was asked again (those cut off by a kill).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { registerPipeline, startRun, stageOf, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

const RUNS = 50;
const KILL_EVERY_MS = 10_000;
/**
 * The workers' defaults, longer than WorkerProcesses' 2 s: a worker process starting under tsx
 * takes a core for seconds, and on a busy 2-core machine the others then renew a short lock late
 * and lose jobs they still run. A job that loses its worker three times fails for good (BullMQ's
 * stalled limit; on a loaded CI a kill every 7 s failed 12 runs so), so workers are killed every
 * 10 s, among three.
 */
const LOCKS = { LOCK_DURATION_MS: '7000', STALLED_INTERVAL_MS: '1000' };
let model: ScriptedModel;
let ledger: LedgerService;
let stack: TestStack;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  model = await startScriptedModel({
    tokenDelayMs: 40,
    script: (request) => {
      const id = /id:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'none';
      const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
      const thinking = Array.from({ length: 12 }, (_, i) => `thought${i}`).join(' ');
      if (turn < 5) return { content: thinking, toolCalls: [0, 1].map((i) => ({ name: 'note_fact', arguments: JSON.stringify({ key: `${id}/t${turn}/c${i}` }) })) };
      return { content: `${thinking} done` };
    },
  });
  ledger = await startLedgerService();
  ledger.latency.ms = 1500;
  stack = await startTestStack({ label: 'agent-crash', toolEnv: ledger.toolEnv, inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
  await ledger.close();
  await model.close();
});

test('fifty agents complete while workers are SIGKILLed again and again, and no tool call is made again once its result is recorded', async () => {
  await registerPipeline(stack, {
    name: 'crash-agent',
    input: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    steps: { think: { agent: { prompt: "'id:' & input.id", tools: ['note_fact'], max_turns: 6 } } },
    output: 'steps.think',
  });
  const env = { ...LOCKS, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string };
  const live: ChildProcess[] = [];
  for (let i = 0; i < 3; i += 1) live.push(await workers.startListening(env));
  const runIds = await Promise.all(Array.from({ length: RUNS }, (_, i) => startRun(stack, 'crash-agent', { id: `r${i}` })));

  const kills = { total: 0, duringModelStream: 0, duringToolCall: 0 };
  let ended = 0;
  const deadline = Date.now() + 300_000;
  // The first kill comes early, while the first turns stream and the first calls run.
  for (let pause = 3000; ended < RUNS && Date.now() < deadline; pause = KILL_EVERY_MS) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    const streaming = model.counters.streamsStarted - model.counters.streamsFinished - model.counters.streamsAbandoned > 0;
    const calling = ledger.calls.some((call) => call.completedAt === undefined);
    const victim = live.shift();
    if (victim) {
      await WorkerProcesses.kill(victim);
      kills.total += 1;
      if (streaming) kills.duringModelStream += 1;
      if (calling) kills.duringToolCall += 1;
    }
    live.push(workers.start(env));
    const statuses = await Promise.all(runIds.map(async (id) => (await stack.json<{ status: string }>(`/v1/runs/${id}`)).body.status));
    ended = statuses.filter((s) => ['completed', 'failed', 'cancelled'].includes(s)).length;
  }
  const runs = await Promise.all(runIds.map((id) => stack.waitForRun(id, 120_000) as Promise<unknown> as Promise<RunBody>));

  const recordedAt = new Map<string, number>();
  for (const run of runs) {
    const agent = (stageOf(run, 'think') as unknown as { agent?: { messages: { role: string; content?: string; at?: string }[] } }).agent;
    for (const message of agent?.messages ?? []) {
      const key = message.role === 'tool' ? (JSON.parse(message.content ?? '{}') as { noted?: string }).noted : undefined;
      if (key && message.at) recordedAt.set(key, Date.parse(message.at));
    }
  }
  const keys = new Set(ledger.calls.map((call) => call.key));
  const afterRecorded = ledger.calls.filter((call) => (recordedAt.get(call.key) ?? Infinity) < call.startedAt);
  const askedPerTurn = new Map<string, number>();
  for (const request of model.requests) {
    const id = /id:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1];
    const key = `${id}/${request.messages.filter((m) => m.role === 'assistant').length + 1}`;
    askedPerTurn.set(key, (askedPerTurn.get(key) ?? 0) + 1);
  }
  const figures = {
    runs: RUNS,
    completed: runs.filter((r) => r.status === 'completed').length,
    kills,
    tool_calls_asked: RUNS * 8,
    tool_calls_recorded: recordedAt.size,
    tool_calls_made: ledger.calls.length,
    distinct_calls_made: keys.size,
    calls_redone_while_in_flight: ledger.calls.length - keys.size - afterRecorded.length,
    calls_made_again_after_recorded: afterRecorded.length,
    model_turns_asked_again: [...askedPerTurn.values()].reduce((sum, n) => sum + n - 1, 0),
    failures: runs.reduce<Record<string, number>>((counts, run) => (run.error ? { ...counts, [`${run.error.code}: ${run.error.message.slice(0, 60)}`]: (counts[`${run.error.code}: ${run.error.message.slice(0, 60)}`] ?? 0) + 1 } : counts), {}),
  };
  console.log(`# agents under SIGKILL: ${JSON.stringify(figures)}`);
  assert.equal(figures.completed, RUNS, JSON.stringify(runs.filter((r) => r.status !== 'completed').map((r) => r.error)));
  assert.equal(figures.tool_calls_recorded, RUNS * 8);
  assert.equal(figures.calls_made_again_after_recorded, 0);
  assert.ok(kills.total >= 3, 'workers were killed while the agents ran');
});
