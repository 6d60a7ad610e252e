/**
 * Worker deaths told apart (services/workers/src/engine/solo-jobs.ts). One worker process runs at
 * a time, so every job in flight dies with it:
 * - deaths unrelated to any job (the worker is SIGKILLed whenever it runs two calls or more,
 *   again and again) fail no run, however often a job loses its worker;
 * - a poison job (a child pipeline step whose start kills its worker: the crash point
 *   `child.linked` armed in every worker) fails its own run as `poison_job` after a bounded number
 *   of deaths, and the runs that died beside it complete.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { POISON_AFTER_SOLO_DEATHS, SUSPECT_AFTER_STALLS } from '../../services/workers/src/engine/solo-jobs.js';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { finishedRun, registerPipeline, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, waitFor, WorkerProcesses, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

/** The workers' default lock: a busy machine must not take jobs from live workers (that would be a death of its own). */
const LOCKS = { LOCK_DURATION_MS: '7000', STALLED_INTERVAL_MS: '1000' };
let ledger: LedgerService;
let stack: TestStack;
const workers = new WorkerProcesses(() => stack);

before(async () => {
  ledger = await startLedgerService();
  ledger.latency.ms = 2500;
  stack = await startTestStack({ label: 'poison-jobs', toolEnv: ledger.toolEnv, inProcessWorkers: false });
  await registerPipeline(stack, {
    name: 'pj-note',
    input: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    steps: { note: { tool: 'note_fact', args: { key: 'input.key' } } },
    output: 'steps.note',
  });
  await registerPipeline(stack, {
    name: 'pj-poison',
    input: { type: 'object' },
    steps: { sub: { pipeline: 'pj-note', args: { key: "'poison'" } } },
    output: 'steps.sub',
  });
});
after(async () => {
  await workers.killAll();
  await stack.close();
  await ledger.close();
});

const statusOf = async (runId: string) => (await stack.json<RunBody>(`/v1/runs/${runId}`)).body.status;
const ended = async (runIds: readonly string[]) => (await Promise.all(runIds.map(statusOf))).every((s) => ['completed', 'failed', 'cancelled'].includes(s));
const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
const env = () => ({ ...LOCKS, TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string });

test('workers killed again and again while they run several jobs fail no run, however often a job loses its worker', async () => {
  const runIds = await Promise.all(Array.from({ length: 6 }, (_, i) => startRun(stack, 'pj-note', { key: `unrelated-${i}` })));
  let kills = 0;
  const maxKills = 6;
  while (!(await ended(runIds))) {
    const worker = await workers.startListening(env());
    const since = Date.now();
    const inFlight = () => ledger.calls.filter((call) => call.startedAt >= since && call.completedAt === undefined).length;
    // Killed whenever it runs two calls at once: never a death one job alone could be blamed for.
    const moment = await waitFor(async () => ({ busy: inFlight() >= 2, done: await ended(runIds) }), (m) => m.busy || m.done, 'two calls run at once, or every run ended', 120_000);
    if (moment.busy && kills < maxKills) {
      await WorkerProcesses.kill(worker);
      kills += 1;
      continue;
    }
    await waitFor(() => ended(runIds), Boolean, 'every run ended', 120_000);
    await WorkerProcesses.kill(worker);
  }
  const runs = await Promise.all(runIds.map((id) => finishedRun(stack, id)));
  const keys = runIds.map((_, i) => `unrelated-${i}`);
  const figures = { runs: runs.length, completed: runs.filter((r) => r.status === 'completed').length, kills, calls_made: ledger.calls.filter((c) => keys.includes(c.key)).length, failures: runs.filter((r) => r.error).map((r) => r.error?.code) };
  console.log(`# unrelated worker deaths: ${JSON.stringify(figures)}`);
  assert.deepEqual(figures.failures, []);
  assert.equal(figures.completed, runIds.length);
  // BullMQ's old limit failed a job at its third death: the test killed past it.
  assert.ok(kills >= SUSPECT_AFTER_STALLS, `${kills} kills`);
});

test('a job that kills its worker fails its own run as poison_job after a bounded number of deaths, and the runs beside it complete', async () => {
  const neighbours = await Promise.all(Array.from({ length: 4 }, (_, i) => startRun(stack, 'pj-note', { key: `neighbour-${i}` })));
  await waitFor(async () => ledger.calls.some((c) => c.key.startsWith('neighbour-')), Boolean, 'a neighbour is called').catch(() => undefined);
  const poisonId = await startRun(stack, 'pj-poison', {});
  let deaths = 0;
  // Every worker arms the poison; one runs at a time, and another starts when it dies.
  while (!(await ended([poisonId, ...neighbours]))) {
    const worker = await workers.startListening({ ...env(), SWITCHYARD_CRASH_POINT: 'child.linked' });
    await Promise.race([once(worker, 'exit'), waitFor(() => ended([poisonId, ...neighbours]), Boolean, 'every run ended', 180_000)]);
    if (exited(worker)) deaths += 1;
    else await WorkerProcesses.kill(worker);
  }
  const poison = await finishedRun(stack, poisonId);
  const others = await Promise.all(neighbours.map((id) => finishedRun(stack, id)));
  const figures = { worker_deaths: deaths, poison: poison.error?.code ?? poison.status, neighbours_completed: others.filter((r) => r.status === 'completed').length, neighbours: others.length };
  console.log(`# poison job: ${JSON.stringify(figures)}`);
  assert.equal(poison.status, 'failed');
  assert.equal(poison.error?.code, 'poison_job', JSON.stringify(poison.error));
  assert.equal(figures.neighbours_completed, neighbours.length, JSON.stringify(others.map((r) => r.error)));
  assert.equal(deaths, SUSPECT_AFTER_STALLS + POISON_AFTER_SOLO_DEATHS, 'the poison job killed its workers a bounded number of times');
});
