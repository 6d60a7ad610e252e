/**
 * What a running pipeline may make, tried with the attacks as they were made: a 1 MB input mapped
 * over 1,000 items (each the whole input), a map's list stored once for its run, a tool that
 * answers 39 MB, a map whose branches together pass the map's output bound, and an `output`
 * expression that makes 39 MB. Each is refused as a failed step or run with a clear code, or
 * stored once; the run's keys and jobs are measured in Redis.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createLogger } from '@switchyard/logger';
import { closeExpressionSandbox, configureExpressionSandbox, runKeys, toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { createOfflineAuthor, createToolServiceApp, defaultFaults, type ToolDefinition } from '@switchyard/tool-services';
import { finishedRun, registerPipeline, startRun, type RunBody } from './testing/pipelines.js';
import { whileAnswering } from './testing/responsive.js';
import { startTestStack, TOOL_KEY, waitFor, type TestStack } from './testing/stack.js';

const MIB = 1024 * 1024;

/** A tool of the test's own service that answers as many bytes of text as it is asked for. */
const inflate: ToolDefinition = {
  name: 'inflate',
  description: 'Answers a text of the given length.',
  input: z.strictObject({ bytes: z.number().int().min(1).max(100 * MIB) }),
  streamsContent: false,
  run: async (_author, input) => ({ text: 'x'.repeat((input as { bytes: number }).bytes) }),
};

let server: Server;
let stack: TestStack;
let redis: Redis;

before(async () => {
  // Room for a 39 MB value from the sandbox, so that the run's own result bound is what is met;
  // and time: at load 20 making 6 MB can pass the default second, and the time budget would bind first.
  await configureExpressionSandbox({ budget: { maxResultBytes: 64 * MIB, memoryMb: 1024, timeoutMs: 30_000 } });
  const app = createToolServiceApp({ name: 'inflate_service', tools: [inflate], author: createOfflineAuthor(), apiKeys: [TOOL_KEY], faults: defaultFaults(), logger: createLogger({ name: 'inflate', level: 'silent' }), bodyLimit: '2mb' });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A result bound of 4 MiB (not the default 16): an output past it is made in a fraction of the
  // expression time budget above, so the size bound binds first.
  stack = await startTestStack({ label: 'run-output-bounds', toolEnv: { TOOL_SERVICES: JSON.stringify({ inflate: { url, timeout_ms: 60_000 } }) }, clientRetries: 0, limits: { resultBytes: 4 * MIB } });
  redis = createRedisClient(stack.redisUrl);
});
after(async () => {
  await closeExpressionSandbox();
  await redis.quit();
  await stack.close();
  await new Promise((resolve) => server.close(resolve));
});

const report = (what: string, figures: object) => process.stdout.write(`# ${what}: ${JSON.stringify(figures)}\n`);
const health = () => `${stack.api.url}/health`;

/** Bytes Redis uses for each of `keys` (MEMORY USAGE over every field, not a sample), summed; a key that is not there counts 0. */
async function memoryOf(keys: readonly string[]): Promise<number> {
  let total = 0;
  for (let at = 0; at < keys.length; at += 500) {
    const pipeline = redis.pipeline();
    for (const key of keys.slice(at, at + 500)) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    for (const [, bytes] of (await pipeline.exec()) ?? []) total += Number(bytes ?? 0);
  }
  return total;
}

const branchJobKeys = (runId: string, step: string, count: number) => Array.from({ length: count }, (_, i) => `${stack.prefix}:${toolQueue('search')}:${runId}.${step}.${i}`);

test('a 1 MB input mapped over 1,000 items, each the whole input, fails at once (the list, 1 GB as JSON, is past the expression sandbox\'s value bound): no item is stored and no branch job made', async () => {
  await registerPipeline(stack, {
    name: 'fan-input',
    input: { type: 'object', properties: { text: { type: 'string' } } },
    steps: { each: { tool: 'search_relevant_information', map: '[1..1000].($$.input)', args: { topic: "'part ' & $string(index)", depth: 1 } } },
  });
  const usedBefore = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  const attack = await whileAnswering(health(), async () => finishedRun(stack, await startRun(stack, 'fan-input', { text: 't'.repeat(1_000_000) })));
  const run = attack.outcome;
  assert.equal(run.status, 'failed');
  // Met first by the sandbox, which measures the value before writing it out; a list made in
  // plain JavaScript meets map_item_too_large (packages/pipeline/src/store/limits.test.ts).
  assert.equal(run.error?.code, 'expression_budget_exceeded');
  assert.equal(run.error?.stage, 'each');
  assert.match(run.error?.message ?? '', /steps\.each\.map: gave a value larger than its budget/);
  const keys = runKeys(stack.prefix);
  assert.equal(await redis.exists(keys.items(run.run_id)), 0, 'no item is stored');
  assert.equal(await redis.exists(branchJobKeys(run.run_id, 'each', 1)[0] as string), 0, 'no branch job was made');
  const runBytes = await memoryOf([keys.run(run.run_id), keys.events(run.run_id), keys.outputs(run.run_id), keys.items(run.run_id)]);
  const usedAfter = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  assert.ok(runBytes < 3 * MIB, `the run holds ${runBytes} bytes`);
  assert.ok(attack.slowestHealthMs < 5000, `the slowest /health took ${attack.slowestHealthMs.toFixed(0)} ms`);
  report('1 MB input × 1,000 items of the whole input', { outcome: run.error?.code, failed_in_ms: Math.round(attack.elapsedMs), run_keys_bytes: runBytes, redis_used_memory_delta: usedAfter - usedBefore, copied_into_jobs_before_this_bound_bytes: 1000 * 1_000_000, slowest_health_ms: Math.round(attack.slowestHealthMs) });
});

test("a map's list is stored once for its run: each branch job names its index, the run's items hash holds the list, and it is dropped when the run ends", async (t) => {
  await registerPipeline(stack, {
    name: 'fan-parts',
    input: { type: 'object', properties: { parts: { type: 'array', items: { type: 'string' } } } },
    steps: { each: { tool: 'search_relevant_information', map: 'input.parts', args: { topic: "'part ' & $string(index)", depth: 1 } } },
    output: '{ "branches": $count(steps.each) }',
  });
  // Slow calls, so that the branches are still queued when they are measured.
  stack.tools.services.search.faults.latencyMs = 300;
  t.after(() => (stack.tools.services.search.faults.latencyMs = 0));
  const parts = Array.from({ length: 1000 }, (_, i) => `${i}:`.padEnd(1000, 'p'));
  const runId = await startRun(stack, 'fan-parts', { parts });
  const keys = runKeys(stack.prefix);
  await waitFor(() => redis.hlen(keys.items(runId)), (n) => n === 1000, 'the list is stored', 30_000);
  await waitFor(() => redis.exists(branchJobKeys(runId, 'each', 1000)[999] as string), (n) => n === 1, 'the last branch job is added', 30_000);
  const itemsBytes = await memoryOf([keys.items(runId)]);
  const jobsBytes = await memoryOf(branchJobKeys(runId, 'each', 1000));
  const data = JSON.parse((await redis.hget(branchJobKeys(runId, 'each', 1000)[999] as string, 'data')) ?? '{}') as { branch?: Record<string, unknown> };
  assert.deepEqual(data.branch, { key: '999', index: 999, count: 1000, from: 'run' }, 'the job names its place, not its item');
  assert.equal(JSON.parse((await redis.hget(keys.items(runId), 'each.999')) ?? 'null'), parts[999]);
  assert.ok(itemsBytes < 2 * 1_000_000, `the list is stored once: ${itemsBytes} bytes`);
  assert.ok(jobsBytes < 1_000_000, `the 1,000 branch jobs hold ${jobsBytes} bytes in all`);
  report('a map over the 1,000 parts of a 1 MB input', { items_hash_bytes: itemsBytes, branch_jobs_bytes: jobsBytes, per_branch_job_bytes: Math.round(jobsBytes / 1000) });

  stack.tools.services.search.faults.latencyMs = 0;
  // 1,000 branches: under two minutes alone, longer beside other stacks on two cores.
  const run = await finishedRun(stack, runId, 400_000);
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  assert.equal((run.result as { branches: number }).branches, 1000);
  assert.equal(await redis.exists(keys.items(runId)), 0, 'the list is dropped when the run ends');
});

test('a step whose tool answers 39 MB fails with output_too_large and the run fails as for any failure; nothing of the output is stored', async () => {
  await registerPipeline(stack, { name: 'inflated-step', steps: { grow: { tool: 'inflate', args: { bytes: 39 * MIB } } } });
  const attack = await whileAnswering(health(), async () => finishedRun(stack, await startRun(stack, 'inflated-step', {}), 60_000));
  const run = attack.outcome;
  assert.equal(run.status, 'failed');
  assert.deepEqual([run.error?.code, run.error?.stage], ['output_too_large', 'grow']);
  assert.equal((run.error as { details?: { variable?: string; limit_bytes?: number } }).details?.variable, 'STEP_MAX_OUTPUT_BYTES');
  assert.equal(await redis.hexists(runKeys(stack.prefix).outputs(run.run_id), 'grow'), 0, 'the output was not stored');
  const read = await stack.request(`/v1/runs/${run.run_id}`);
  const size = (await read.arrayBuffer()).byteLength;
  assert.ok(size < 10_000, `the run reads as ${size} bytes`);
  report('a tool answering 39 MB', { outcome: run.error?.code, failed_in_ms: Math.round(attack.elapsedMs), run_view_bytes: size, slowest_health_ms: Math.round(attack.slowestHealthMs) });
});

test("a map's branches share its output bound: eight branches of 3 MB fail with output_too_large naming MAP_MAX_OUTPUT_BYTES, where one such step passes", async () => {
  await registerPipeline(stack, { name: 'inflated-one', steps: { grow: { tool: 'inflate', args: { bytes: 3 * MIB } } }, output: '{ "length": $length(steps.grow.text) }' });
  const one = await finishedRun(stack, await startRun(stack, 'inflated-one', {}), 60_000);
  assert.equal(one.status, 'completed', JSON.stringify(one.error));
  assert.equal((one.result as { length: number }).length, 3 * MIB);

  await registerPipeline(stack, { name: 'inflated-map', steps: { grow: { tool: 'inflate', map: '[1..8]', args: { bytes: 3 * MIB } } } });
  const run = await finishedRun(stack, await startRun(stack, 'inflated-map', {}), 60_000);
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'output_too_large');
  assert.match(run.error?.stage ?? '', /^grow\.\d$/);
  assert.deepEqual((run.error as { details?: { variable?: string; limit_bytes?: number } }).details, { variable: 'MAP_MAX_OUTPUT_BYTES', limit_bytes: 2 * MIB });
});

test('an output expression that makes 6 MB, past RUN_MAX_RESULT_BYTES, fails the run with result_too_large, and reading the run stays small', async () => {
  await registerPipeline(stack, {
    name: 'inflated-result',
    input: { type: 'object', properties: { text: { type: 'string' } } },
    steps: { find: { tool: 'search_relevant_information', args: { topic: "'a harbour'" } } },
    output: '$join([1..6].($$.input.text))',
  });
  const attack = await whileAnswering(health(), async () => finishedRun(stack, await startRun(stack, 'inflated-result', { text: 'r'.repeat(1_000_000) }), 60_000));
  const run = attack.outcome as RunBody & { result: unknown };
  assert.equal(run.status, 'failed');
  assert.equal(run.error?.code, 'result_too_large');
  assert.equal(run.result, null);
  assert.equal(await redis.hexists(runKeys(stack.prefix).run(run.run_id), 'result'), 0, 'no result was stored');
  report('an output of 6 MB', { outcome: run.error?.code, failed_in_ms: Math.round(attack.elapsedMs), slowest_health_ms: Math.round(attack.slowestHealthMs) });
});
