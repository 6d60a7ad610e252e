/**
 * Every crash point of the engine (packages/pipeline/src/crash-points.ts), each with a process
 * killed there. The points are read from the sources (`crashPoint('…')` calls), and each must
 * have a case below: a new write path with a point and no case fails the first test.
 *
 * A case runs a small pipeline whose path passes its point, on one worker process with the point
 * armed (it SIGKILLs itself there), then lets workers with nothing armed recover, and checks:
 * - the worker died at the point (SIGKILL), so the case passed through it;
 * - the run ends as it would without the crash (its status, and a failure's step);
 * - no tool call was made again once its stage had recorded its result (the tool service's log);
 * - each event id is there once and in order, and no stage completed twice;
 * - nothing of the run is left that retention will not remove: every key of its own has a TTL,
 *   and each of its BullMQ jobs has finished (the retention janitor cleans those).
 * Cases run four at a time, each on a stack and key prefix of its own; the count of points and
 * how long they took are printed.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { ModelClient, parseModelsConfig } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { compareStreamIds } from '@switchyard/pipeline';
import { createRedisClient, REPO_ROOT, testRedis } from '@switchyard/redis';
import { createHttpTools, startWorkers, type RunningWorkers } from '@switchyard/workers';
import { readSse } from '../../services/orchestrator/src/testing/events.js';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { finishedRun, registerPipeline, startRun, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, waitFor, WorkerProcesses, type TestStack } from '../../services/orchestrator/src/testing/stack.js';

/** The crash points named in the engine's sources, each once. */
function crashPointsInSources(): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        for (const match of readFileSync(full, 'utf8').matchAll(/\bcrashPoint\('([a-z0-9.-]+)'\)/g)) found.add(match[1] as string);
      }
    }
  };
  walk(path.join(REPO_ROOT, 'packages'));
  walk(path.join(REPO_ROOT, 'services'));
  return [...found].sort();
}

const note = (key: string, extra: Record<string, unknown> = {}) => ({ tool: 'note_fact', args: { key }, ...extra });
const PIPELINES = [
  // Two dependents of one step (no BullMQ chain), and a last step that needs both.
  { name: 'cx-flow', input: { type: 'object' }, steps: { a: note("input.tag & '/a'"), b: note("input.tag & '/b'", { needs: ['a'] }), c: note("input.tag & '/c'", { needs: ['a'] }), d: note("input.tag & '/d'", { needs: ['b', 'c'] }) }, output: 'steps.d' },
  { name: 'cx-leaf', input: { type: 'object' }, steps: { note: note("input.tag & '/leaf'") }, output: 'steps.note' },
  { name: 'cx-parent', input: { type: 'object' }, steps: { sub: { pipeline: 'cx-leaf', args: { tag: 'input.tag' } }, after: note("input.tag & '/after'", { needs: ['sub'] }) }, output: 'steps.after' },
  { name: 'cx-map', input: { type: 'object' }, steps: { m: { ...note("input.tag & '/m/' & item"), map: 'input.items' }, done: note("input.tag & '/done'", { needs: ['m'] }) }, output: 'steps.done' },
  // `input.empty` is '': the tool's schema refuses it before any call, a failure for good.
  { name: 'cx-rescue', input: { type: 'object' }, steps: { bad: note('input.empty', { on_error: 'rescue' }), rescue: note("input.tag & '/rescue'"), after: note("input.tag & '/after'", { needs: ['bad'] }) }, output: 'steps.after' },
  { name: 'cx-fail', input: { type: 'object' }, steps: { bad: note('input.empty'), other: note("input.tag & '/other'") }, output: 'steps.other' },
  // The scripted model calls note_fact in its first turn and answers in its second.
  { name: 'cx-agent', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag", tools: ['note_fact'], max_turns: 3 } } }, output: 'steps.think' },
  // The same agent, its call made only once a person approves it (the case answers every approval listed).
  // Its answer streams for about 6 s, long enough for the killed turn to be taken over meanwhile.
  { name: 'cx-approve', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag & ' slow'", tools: [{ tool: 'note_fact', approval: 'required' }], max_turns: 3 } } }, output: 'steps.think' },
];

interface CrashCase {
  pipeline: string;
  input?: Record<string, unknown>;
  /** How the run ends without the crash: its status, and for a failure the step that failed. */
  expect: { status: 'completed' } | { status: 'failed'; stage: string };
  /** The next N tool requests fail with a 503 (the armed worker's first attempt, all its retries). */
  failNext?: number;
  /** Approve each of the run's calls the inbox lists, as soon as it is listed. */
  approve?: boolean;
  /** How often the recovering workers look for stalled jobs (default 500 ms): later, and the killed job is taken over after the others ran. */
  stalledIntervalMs?: number;
}

const COMPLETES = { status: 'completed' } as const;
/** Each crash point, and the cases that pass through it. */
const CASES: Record<string, CrashCase | CrashCase[]> = {
  'run.hashed': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.linked': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.created': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.parented': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.queued': { pipeline: 'cx-parent', expect: COMPLETES },
  'stage.started': { pipeline: 'cx-flow', expect: COMPLETES },
  'stage.worked': { pipeline: 'cx-flow', expect: COMPLETES },
  'stage.completed': { pipeline: 'cx-flow', expect: COMPLETES },
  'step.advanced': { pipeline: 'cx-flow', expect: COMPLETES },
  'run.finished': { pipeline: 'cx-flow', expect: COMPLETES },
  // A worker's tool client tries 4 times (3 retries): the stage's first attempt fails, retryably.
  'stage.retry-marked': { pipeline: 'cx-flow', expect: COMPLETES, failNext: 4 },
  'map.expanded': { pipeline: 'cx-map', input: { items: ['x', 'y', 'z'] }, expect: COMPLETES },
  'fallback.taken': { pipeline: 'cx-rescue', input: { empty: '' }, expect: COMPLETES },
  'fallback.stood-in': { pipeline: 'cx-rescue', input: { empty: '' }, expect: COMPLETES },
  'stage.failed-marked': { pipeline: 'cx-fail', input: { empty: '' }, expect: { status: 'failed', stage: 'bad' } },
  'run.failed': { pipeline: 'cx-fail', input: { empty: '' }, expect: { status: 'failed', stage: 'bad' } },
  'agent.turn-recorded': { pipeline: 'cx-agent', expect: COMPLETES },
  // Approved while the killed turn's job waits to be taken over: the turn, run again, must not wait for the answered call again.
  'agent.next-queued': [{ pipeline: 'cx-agent', expect: COMPLETES }, { pipeline: 'cx-approve', expect: COMPLETES, approve: true, stalledIntervalMs: 1500 }],
  'approval.parked': { pipeline: 'cx-approve', expect: COMPLETES, approve: true },
  'agent.call-made': { pipeline: 'cx-agent', expect: COMPLETES },
  'agent.call-recorded': { pipeline: 'cx-agent', expect: COMPLETES },
};

const points = crashPointsInSources();
let redis: Redis;
let model: ScriptedModel;
const startedAt = Date.now();
before(async () => {
  redis = createRedisClient((await testRedis()).url);
  model = await startScriptedModel({
    script: (request) => {
      const tag = /tag:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'none';
      const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
      const slow = /\sslow\b/.test(String(request.messages.find((m) => m.role === 'user')?.content ?? ''));
      if (turn === 1) return { content: 'noting', toolCalls: [{ name: 'note_fact', arguments: JSON.stringify({ key: `${tag}/call` }) }] };
      return slow ? { content: `noted${' slowly'.repeat(12)}`, tokenDelayMs: 500 } : { content: 'noted' };
    },
  });
});
after(async () => {
  process.stdout.write(`# crash points: ${points.length}, every one killed and recovered in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
  await model.close();
  await redis.quit();
});

test('every crash point in the sources has a case, and every case names a point there', () => {
  assert.deepEqual(points, Object.keys(CASES).sort());
});

/** The run and the child runs it names, as the API shows them. */
async function runsOf(stack: TestStack, runId: string): Promise<RunBody[]> {
  const run = (await stack.json<RunBody>(`/v1/runs/${runId}`)).body;
  const children = run.stages.flatMap((s) => (s.child_run ? [s.child_run] : []));
  return [run, ...(await Promise.all(children.map((id) => runsOf(stack, id)))).flat()];
}

/** Calls of a stage's tool made after the stage had recorded its result (none may be). */
function callsAfterRecorded(ledger: LedgerService, tag: string, runs: readonly RunBody[]): string[] {
  const recordedAt = new Map<string, number>();
  for (const run of runs) {
    for (const stage of run.stages) {
      if (stage.status === 'completed' && stage.finished_at) recordedAt.set(`${tag}/${stage.name === 'note' ? 'leaf' : stage.name}`, Date.parse(stage.finished_at));
      // An agent's calls: recorded in its transcript, each with its time.
      for (const message of (stage as { agent?: { messages: { role: string; content?: string; at?: string }[] } }).agent?.messages ?? []) {
        const noted = message.role === 'tool' ? (JSON.parse(message.content ?? '{}') as { noted?: string }).noted : undefined;
        if (noted && message.at) recordedAt.set(noted, Date.parse(message.at));
      }
    }
  }
  return ledger.calls.filter((call) => call.startedAt > (recordedAt.get(call.key) ?? Infinity)).map((call) => call.key);
}

type AgentView = { turns: number; messages: { role: string; call_id?: string; tool_calls?: { id: string }[] }[] };
const agentOf = (stage: unknown) => (stage as { name: string; agent?: AgentView }).agent;

/** Events once each, in order, at most one completion per stage, one `turn` per recorded turn, one `tool_call` and one `tool_result` per recorded call. */
async function checkEvents(stack: TestStack, run: RunBody): Promise<void> {
  const events = await readSse(await stack.request(`/v1/runs/${run.run_id}/events`), (event) => event.event === 'done');
  const ids = events.map((e) => e.id ?? '');
  assert.equal(new Set(ids).size, ids.length, `event ids once: ${ids.join(' ')}`);
  for (let i = 1; i < ids.length; i += 1) assert.ok(compareStreamIds(ids[i - 1] as string, ids[i] as string) < 0, `event ids in order: ${ids.join(' ')}`);
  const completions = events.filter((e) => e.event === 'stage').map((e) => JSON.parse(e.data) as { stage: string; status: string }).filter((e) => e.status === 'completed').map((e) => e.stage);
  assert.equal(new Set(completions).size, completions.length, `no stage completed twice: ${completions.join(' ')}`);
  const told = (type: string, key: (data: { stage: string; turn: number; call_id: string }) => string) => events.filter((e) => e.event === type).map((e) => key(JSON.parse(e.data) as { stage: string; turn: number; call_id: string })).sort();
  const turns = run.stages.flatMap((stage) => Array.from({ length: agentOf(stage)?.turns ?? 0 }, (_, i) => `${stage.name}/${i + 1}`)).sort();
  assert.deepEqual(told('turn', (d) => `${d.stage}/${d.turn}`), turns, 'each recorded turn told once by its turn event');
  const asked = run.stages.flatMap((stage) => (agentOf(stage)?.messages ?? []).flatMap((m) => (m.tool_calls ?? []).map((call) => call.id))).sort();
  assert.deepEqual(told('tool_call', (d) => d.call_id), asked, 'each recorded call told once by its tool_call event');
  const answered = run.stages.flatMap((stage) => (agentOf(stage)?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.call_id ?? '')).sort();
  assert.deepEqual(told('tool_result', (d) => d.call_id), answered, 'each recorded call result told once by its tool_result event');
}

/** What of a run is left in Redis: its own keys without a TTL, and its BullMQ jobs not finished. */
async function leftovers(runId: string): Promise<string[]> {
  const left: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${runId}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if (key.includes(':run:')) {
        if ((await redis.pttl(key)) < 0) left.push(`${key} (no TTL)`);
      } else if ((await redis.type(key)) === 'hash' && !(await redis.hexists(key, 'finishedOn'))) left.push(`${key} (job not finished)`);
    }
  } while (cursor !== '0');
  return left;
}

/** Approves the run's calls as the inbox lists them, until stopped. */
function approveAll(stack: TestStack, runId: string): { stop(): void } {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const { body } = await stack.json<{ items: { run_id: string; answer_url: string }[] }>('/v1/inbox');
      for (const item of body.items.filter((i) => i.run_id === runId)) {
        await stack.request(item.answer_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approve: true }) });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })().catch(() => undefined);
  return { stop: () => (stopped = true) };
}

async function crashAt(point: string, spec: CrashCase): Promise<void> {
  const ledger = await startLedgerService();
  const stack = await startTestStack({ label: `crash-${point}`, toolEnv: ledger.toolEnv, inProcessWorkers: false });
  const pool = new WorkerProcesses(() => stack);
  let recovery: RunningWorkers | undefined;
  let approving: { stop(): void } | undefined;
  try {
    for (const definition of PIPELINES) await registerPipeline(stack, definition);
    const armed = await pool.startListening({ TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', SWITCHYARD_CRASH_POINT: point, LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '500' });
    ledger.faults.failNext = spec.failNext ?? 0;
    const tag = `t-${point}`;
    const runId = await startRun(stack, spec.pipeline, { tag, ...spec.input });
    await waitFor(async () => armed.exitCode !== null || armed.signalCode !== null, Boolean, `the worker reaches ${point}`, 60_000);
    assert.equal(armed.signalCode, 'SIGKILL', `the worker died at ${point}`);
    // Answered before any worker runs again: the call's job may then resolve the wait before the killed job is taken over.
    approving = spec.approve ? approveAll(stack, runId) : undefined;
    recovery = await startWorkers({
      redisUrl: stack.redisUrl,
      prefix: stack.prefix,
      logger: createLogger({ name: 'test', level: 'silent' }),
      tools: createHttpTools(stack.toolConfig, { retry: { retries: 1, minDelayMs: 20, maxDelayMs: 100 } }),
      lockDurationMs: 5000,
      stalledIntervalMs: spec.stalledIntervalMs ?? 500,
      reconcileIntervalMs: 2000,
      agents: { models: new ModelClient({ models: parseModelsConfig({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted' }, fallbackBaseUrl: model.baseUrl, fallbackApiKey: 'k' }) }) },
    });
    const run = await finishedRun(stack, runId, 90_000);
    assert.equal(run.status, spec.expect.status, JSON.stringify(run.error ?? run.stages));
    if (spec.expect.status === 'failed') assert.equal(run.error?.stage, spec.expect.stage);
    const runs = await runsOf(stack, runId);
    assert.deepEqual(callsAfterRecorded(ledger, tag, runs), [], 'no call made again after its result was recorded');
    for (const each of runs) await checkEvents(stack, each);
    for (const each of runs) await waitFor(() => leftovers(each.run_id), (left) => left.length === 0, `nothing of ${each.run_id} is left that retention will not remove`, 30_000);
  } finally {
    approving?.stop();
    await pool.killAll();
    await recovery?.close(2000);
    await stack.close();
    await ledger.close();
  }
}

describe('a process killed at each crash point', { concurrency: 4 }, () => {
  for (const point of points) {
    const specs = [CASES[point] ?? []].flat();
    for (const spec of specs) {
      test(`killed at ${point} in ${spec.pipeline}, the stack recovers: the run ends as it would have, no recorded call made again, events once and in order, nothing left behind`, async () => {
        await crashAt(point, spec);
      });
    }
  }
});
