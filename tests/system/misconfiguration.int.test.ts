/**
 * A wrong tool-service key is said, not discovered: a worker says so at start-up, naming the
 * variable; the orchestrator's /health names it; a stage refused by the service fails its run with
 * an error that names the configuration to fix.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '@switchyard/logger';
import { startOrchestrator } from '../../services/orchestrator/src/server.js';
import { startTestStack, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

let stack: TestStack;
const workers = new WorkerProcesses(() => stack);
before(async () => {
  stack = await startTestStack({ label: 'misconfiguration', inProcessWorkers: false });
});
after(async () => {
  await workers.killAll();
  await stack.close();
});

test('a worker with a refused tool-service key says so at start-up, and its stages fail naming TOOL_SERVICE_API_KEY', async () => {
  const worker = workers.start({ TOOL_SERVICE_API_KEY: 'not-the-key', LOG_LEVEL: 'warn' }, true);
  let output = '';
  worker.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // A worker's start under tsx takes seconds, and tens of them on a machine loaded many times over.
  const deadline = Date.now() + 90_000;
  while (!output.includes('TOOL_SERVICE_API_KEY') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const line = output.split('\n').find((l) => l.includes('TOOL_SERVICE_API_KEY')) ?? '';
  process.stdout.write(`# start-up line: ${line.slice(0, 300)}\n`);
  assert.match(line, /refused the API key/);

  const { body } = await stack.json<{ run_id: string }>('/v1/stories', { method: 'POST', body: JSON.stringify({ topic: 'a key that does not fit' }) });
  const run = await stack.waitForRun(body.run_id, 20_000);
  const error = run.error as { code: string; message: string; retryable: boolean };
  assert.equal(run.status, 'failed');
  assert.equal(error.code, 'tool_auth_refused');
  assert.match(error.message, /TOOL_SERVICE_API_KEY/);
  assert.equal(error.retryable, false);
});

test('the orchestrator\'s /health names the refused key of each tool service', async () => {
  const api = await startOrchestrator({
    redisUrl: stack.redisUrl,
    prefix: stack.prefix,
    apiKeys: ['k'],
    toolServices: { ...stack.toolConfig, apiKey: 'not-the-key' },
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
  try {
    const res = await fetch(`${api.url}/health`);
    const report = (await res.json()) as { status: string; services: Record<string, { healthy: boolean; error?: string }> };
    assert.equal(res.status, 503);
    assert.equal(report.status, 'degraded');
    for (const service of Object.values(report.services)) assert.match(service.error ?? '', /refused the API key .*TOOL_SERVICE_API_KEY/);
  } finally {
    await api.close();
  }
});
