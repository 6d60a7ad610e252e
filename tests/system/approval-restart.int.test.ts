/**
 * An approval survives everything restarting: an agent run waits for a person, then the worker
 * process is killed, the orchestrator stopped and Redis shut down (its AOF kept); all start again,
 * the approval is given through the API, and the run completes with the approved call made once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { RestartableRedis } from '@switchyard/redis';
import { startOrchestrator, type RunningOrchestrator } from '../../services/orchestrator/src/server.js';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { registerPipeline, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

let redis: RestartableRedis;
let model: ScriptedModel;
let ledger: LedgerService;
let stack: TestStack;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  redis = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
  model = await startScriptedModel({
    script: (request) => {
      const result = request.messages.find((m) => m.role === 'tool');
      return result ? { content: `done: ${String(result.content)}` } : { content: 'Noting it, if allowed.', toolCalls: [{ name: 'note_fact', arguments: '{"key":"restart/asked"}' }] };
    },
  });
  ledger = await startLedgerService();
  stack = await startTestStack({ label: 'approval-restart', redisUrl: redis.url, toolEnv: ledger.toolEnv, inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
  await ledger.close();
  await model.close();
  await redis.close();
});

test('an approval given after every process and Redis restarted completes the run, the call made once', async () => {
  // The workers' own lock settings (not the 2 s lock of WorkerProcesses): a busy machine renews a 2 s lock late.
  const env = { LOCK_DURATION_MS: '7000', STALLED_INTERVAL_MS: '1000', LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string };
  await registerPipeline(stack, {
    name: 'guarded-agent',
    steps: { act: { agent: { prompt: "'note something'", tools: [{ tool: 'note_fact', approval: "arguments.key != 'harmless'" }] } } },
    output: 'steps.act',
  });
  const first = await workers.startListening(env);
  const runId = await startRun(stack, 'guarded-agent', {});
  const inbox = async (api: string) => ((await (await fetch(`${api}/v1/inbox`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })).json()) as { items: { run_id: string; answer_url: string }[] }).items.filter((i) => i.run_id === runId);
  const [item] = await waitFor(() => inbox(stack.api.url), (items) => items.length === 1, 'the call waits for approval');

  await WorkerProcesses.kill(first);
  await stack.api.close();
  await redis.shutdown();
  await redis.up();
  const api: RunningOrchestrator = await startOrchestrator({ redisUrl: redis.url, prefix: stack.prefix, apiKeys: [TEST_API_KEY], toolServices: stack.toolConfig, logger: createLogger({ name: 'restarted', level: 'silent' }) });
  try {
    await workers.startListening(env);
    assert.equal((await inbox(api.url)).length, 1, 'the wait survived the restarts');
    const answer = await fetch(`${api.url}${item?.answer_url}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ approve: true }) });
    assert.equal(answer.status, 202);
    const run = await waitFor(async () => (await (await fetch(`${api.url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } })).json()) as { status: string; result: unknown; error?: unknown }, (r) => ['completed', 'failed', 'cancelled'].includes(r.status), 'the run ends', 60_000);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.match(String(run.result), /^done: .*restart\/asked/);
    assert.deepEqual(ledger.calls.map((c) => c.key), ['restart/asked']);
  } finally {
    await api.close();
  }
});
