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
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { IDEMPOTENCY_META_KEY, McpToolSource } from '@switchyard/mcp-tools';
import { ModelClient, parseModelsConfig } from '@switchyard/models';
import { startScriptedModel, type ScriptedModel } from '@switchyard/models/testing';
import { parseAllowList, QUEUES, runKeys } from '@switchyard/pipeline';
import { createRedisClient, REPO_ROOT, testRedis } from '@switchyard/redis';
import { createHttpTools, startWorkers, type RunningWorkers } from '@switchyard/workers';
import { startFixtureServer, type FixtureServer } from '../../packages/mcp-tools/src/testing/fixture-server.js';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { OrchestratorProcesses } from '../../services/orchestrator/src/testing/orchestrator-process.js';
import { finishedRun, registerPipeline, startRun } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, waitFor, WorkerProcesses, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { approveAll, callsAfterRecorded, checkEvents, leftovers, runsOf } from './testing/crash-checks.js';

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
  // The same agent calling an MCP server's tool (the fixture's `echo`, which logs each call's idempotency key).
  { name: 'cx-mcp', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag & ' mcp'", tools: [{ mcp: 'fixture', tool: 'echo' }], max_turns: 3 } } }, output: 'steps.think' },
  // The same agent calling a pipeline: its call is a child run (the child-run points, reached from a turn).
  { name: 'cx-asks', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag & ' child'", tools: [{ pipeline: 'cx-leaf' }], max_turns: 3 } } }, output: 'steps.think' },
  // The same agent, its call made only once a person approves it (the case answers every approval listed).
  // Its answer streams for about 6 s, long enough for the killed turn to be taken over meanwhile.
  { name: 'cx-approve', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag & ' slow'", tools: [{ tool: 'note_fact', approval: 'required' }], max_turns: 3 } } }, output: 'steps.think' },
  // Started by a schedule: its calls are told apart by the run's id.
  { name: 'cx-ticked', input: { type: 'object' }, steps: { a: note("run_id & '/a'"), b: note("run_id & '/b'", { needs: ['a'] }) }, output: 'steps.b' },
  // Waits for the signal `go` (sent by the case), or for 1 s, going on without it.
  { name: 'cx-signal', input: { type: 'object' }, steps: { review: { wait: { signal: 'go', timeout: '5m' } }, after: note("input.tag & '/after'", { needs: ['review'] }) }, output: 'steps.after' },
  { name: 'cx-timeout', input: { type: 'object' }, steps: { review: { wait: { signal: 'never', timeout: '1s', on_timeout: 'continue' } }, after: note("input.tag & '/after'", { needs: ['review'] }) }, output: 'steps.after' },
  // A run whose child waits for an approval nobody gives: live until cancelled.
  { name: 'cx-waiting', input: { type: 'object' }, steps: { sub: { pipeline: 'cx-approve', args: { tag: 'input.tag' } } }, output: 'steps.sub' },
];

interface CrashCase {
  pipeline: string;
  input?: Record<string, unknown>;
  /** How the run ends without the crash: its status, and for a failure the step that failed. */
  expect: { status: 'completed' | 'cancelled' } | { status: 'failed'; stage: string };
  /** The next N tool requests fail with a 503 (the armed worker's first attempt, all its retries). */
  failNext?: number;
  /** Approve each of the run's calls the inbox lists, as soon as it is listed. */
  approve?: boolean;
  /** How often the recovering workers look for stalled jobs (default 500 ms): later, and the killed job is taken over after the others ran. */
  stalledIntervalMs?: number;
  /** The process armed: a worker (default), or an orchestrator, sent the request that starts (or cancels) the run. */
  armed?: 'worker' | 'orchestrator';
  /** How the runs start: one run (default), a batch of two (`POST /v1/batches`), or a schedule's ticks every 2 s (its pipeline must tag calls by run id). */
  start?: 'run' | 'batch' | 'schedule';
  /** More settings of the armed worker. */
  workerEnv?: Record<string, string>;
  /** The run is started with a `notify_url` on a receiver of the case's own: every delivery of its end must carry one Idempotency-Key. */
  webhook?: boolean;
  /** What the armed orchestrator is sent once the run (or a child of it) waits: its cancel, the approval of its call, or its signal `go`. */
  send?: 'cancel' | 'approval' | 'signal';
  /** The run's MCP call as the MCP server saw it: made once, or made again (its result not recorded) with the same idempotency key. */
  mcpCalls?: 'once' | 'again-with-its-key';
}

const COMPLETES = { status: 'completed' } as const;
const API = { pipeline: 'cx-flow', expect: COMPLETES, armed: 'orchestrator' } as const;
/** Each crash point, and the cases that pass through it. */
const CASES: Record<string, CrashCase | CrashCase[]> = {
  // The orchestrator's writes: each request sent again to another orchestrator (a start with its Idempotency-Key).
  'idempotency.claimed': [API, { ...API, start: 'batch' }],
  // Admitted under the key's bound of live runs, nothing written: the start sent again admits nothing twice.
  'run.admitted': [API, { pipeline: 'cx-ticked', expect: COMPLETES, start: 'schedule' }],
  'run.hashed': [{ pipeline: 'cx-parent', expect: COMPLETES }, API],
  'run.indexed': [{ pipeline: 'cx-parent', expect: COMPLETES }, API],
  'run.recorded': API,
  'batch.written': { ...API, start: 'batch' },
  'batch.recorded': { ...API, start: 'batch' },
  'batch.page-queued': { pipeline: 'cx-flow', expect: COMPLETES, start: 'batch' },
  'tick.claimed': { pipeline: 'cx-ticked', expect: COMPLETES, start: 'schedule' },
  'tick.started': { pipeline: 'cx-ticked', expect: COMPLETES, start: 'schedule' },
  'run.cancelled': { pipeline: 'cx-waiting', expect: { status: 'cancelled' }, armed: 'orchestrator', send: 'cancel' },
  'approval.decided': { pipeline: 'cx-approve', expect: COMPLETES, armed: 'orchestrator', send: 'approval' },
  'signal.recorded': { pipeline: 'cx-signal', expect: COMPLETES, armed: 'orchestrator', send: 'signal' },
  'wait.timed-out': { pipeline: 'cx-timeout', expect: COMPLETES },
  'webhook.delivered': { pipeline: 'cx-flow', expect: COMPLETES, webhook: true },
  // The armed worker runs the run, then compacts it 0.5 s after its end (and dies there).
  'run.compacted': { pipeline: 'cx-flow', expect: COMPLETES, workerEnv: { COMPACT_INTERVAL_MS: '500', COMPACT_AFTER_MS: '500' } },
  // The armed worker's retention janitor dies in its first pass; the recovering workers' passes carry on.
  'retention.pruned': { pipeline: 'cx-flow', expect: COMPLETES, workerEnv: { RETENTION_PASS_MS: '500' } },
  'child.linked': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.created': [{ pipeline: 'cx-parent', expect: COMPLETES }, { pipeline: 'cx-asks', expect: COMPLETES }],
  'child.parented': { pipeline: 'cx-parent', expect: COMPLETES },
  'child.queued': [{ pipeline: 'cx-parent', expect: COMPLETES }, { pipeline: 'cx-asks', expect: COMPLETES }],
  'stage.started': { pipeline: 'cx-flow', expect: COMPLETES },
  // b and c carry what they read (a's output and the request): the first of them to run dies there.
  'stage.carried': { pipeline: 'cx-flow', expect: COMPLETES },
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
  'agent.call-made': [{ pipeline: 'cx-agent', expect: COMPLETES }, { pipeline: 'cx-mcp', expect: COMPLETES, mcpCalls: 'again-with-its-key' }],
  'agent.call-recorded': [{ pipeline: 'cx-agent', expect: COMPLETES }, { pipeline: 'cx-mcp', expect: COMPLETES, mcpCalls: 'once' }],
};

const points = crashPointsInSources();
let redis: Redis;
let model: ScriptedModel;
let mcpServer: FixtureServer;
const startedAt = Date.now();
before(async () => {
  redis = createRedisClient((await testRedis()).url);
  mcpServer = await startFixtureServer();
  model = await startScriptedModel({
    script: (request) => {
      const tag = /tag:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'none';
      const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
      const slow = /\sslow\b/.test(String(request.messages.find((m) => m.role === 'user')?.content ?? ''));
      const mcp = /\smcp\b/.test(String(request.messages.find((m) => m.role === 'user')?.content ?? ''));
      if (turn === 1 && /\schild\b/.test(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))) return { content: 'asking', toolCalls: [{ name: 'pipeline_cx-leaf', arguments: JSON.stringify({ tag }) }] };
      if (turn === 1 && mcp) return { content: 'echoing', toolCalls: [{ name: 'echo', arguments: JSON.stringify({ text: `${tag}/mcp` }) }] };
      if (turn === 1) return { content: 'noting', toolCalls: [{ name: 'note_fact', arguments: JSON.stringify({ key: `${tag}/call` }) }] };
      return slow ? { content: `noted${' slowly'.repeat(12)}`, tokenDelayMs: 500 } : { content: 'noted' };
    },
  });
});
after(async () => {
  receiver?.close();
  process.stdout.write(`# crash points: ${points.length}, every one killed and recovered in ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`);
  await model.close();
  await mcpServer.close();
  await redis.quit();
});

test('every crash point in the sources has a case, and every case names a point there', () => {
  assert.deepEqual(points, Object.keys(CASES).sort());
});

/** Workers with nothing armed, to recover what the killed process left. */
/** The fixture MCP server as agent steps reach it (a source per stack: the orchestrator's listing, and the recovering workers). */
const fixtureSources = () => new Map([['fixture', new McpToolSource({ name: 'fixture', server: { url: mcpServer.url } })]]);

function recoveryWorkers(stack: TestStack, spec: CrashCase): Promise<RunningWorkers> {
  return startWorkers({
    ...(spec.webhook ? { webhooks: { allow: parseAllowList(`127.0.0.1:${receiverPort()}`), secret: WEBHOOK_SECRET, timeoutMs: 2000, responseMaxBytes: 4096 } } : {}),
    redisUrl: stack.redisUrl,
    prefix: stack.prefix,
    logger: createLogger({ name: 'test', level: 'silent' }),
    tools: createHttpTools(stack.toolConfig, { retry: { retries: 1, minDelayMs: 20, maxDelayMs: 100 } }),
    lockDurationMs: 5000,
    stalledIntervalMs: spec.stalledIntervalMs ?? 500,
    reconcileIntervalMs: 2000,
    agents: { models: new ModelClient({ models: parseModelsConfig({ env: { LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted' }, fallbackBaseUrl: model.baseUrl, fallbackApiKey: 'k' }) }), mcp: fixtureSources() },
  });
}

async function diedAt(child: ChildProcess, point: string): Promise<void> {
  await waitFor(async () => child.exitCode !== null || child.signalCode !== null, Boolean, `the process reaches ${point}`, 60_000);
  assert.equal(child.signalCode, 'SIGKILL', `the process died at ${point}`);
}

/** What starts the case's runs over the API: a run, or a batch of two. */
function startRequest(spec: CrashCase, tag: string, notifyUrl?: string): { path: string; body: unknown; tags: string[] } {
  const query = notifyUrl ? `?notify_url=${encodeURIComponent(notifyUrl)}` : '';
  if (spec.start !== 'batch') return { path: `/v1/pipelines/${spec.pipeline}/runs${query}`, body: { tag, ...spec.input }, tags: [tag] };
  const tags = [`${tag}-0`, `${tag}-1`];
  return { path: '/v1/batches', body: { pipeline: spec.pipeline, items: tags.map((each) => ({ tag: each, ...spec.input })) }, tags };
}

interface Started {
  runIds: string[];
  tags: string[];
  batchId?: string;
}

/**
 * An orchestrator process armed at `point` is sent the request and dies in it; the request is then
 * sent again, as a client whose connection dropped would, to the stack's own orchestrator: with the
 * same Idempotency-Key for a start (which must give the runs once), the same DELETE for a cancel.
 */
async function crashOrchestrator(point: string, spec: CrashCase, stack: TestStack, ledger: LedgerService, orchestrators: OrchestratorProcesses): Promise<Started> {
  const orchestrator = await orchestrators.start({ TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string, SWITCHYARD_CRASH_POINT: point });
  const headers = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json', 'idempotency-key': `key-${point}` };
  const tag = `t-${point}`;
  if (spec.send) {
    const runId = await startRun(stack, spec.pipeline, { tag, ...spec.input });
    await waitFor(() => runsOf(stack, runId), (runs) => runs.some((run) => run.status === 'waiting'), 'a run of the tree waits', 60_000);
    const request = await answerOf(stack, spec.send, runId);
    const send = (base: string) => fetch(`${base}${request.path}`, { method: request.method, headers, ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }) });
    await send(orchestrator.url).then((res) => res.text(), () => undefined);
    await diedAt(orchestrator.child, point);
    const again = await send(stack.api.url);
    // A second answer is 409 (approval_decided) or 200 (a duplicate signal): either way what the first left undone is done.
    assert.ok([200, 202, 409].includes(again.status), `the request, sent again, is answered: ${again.status} ${await again.text()}`);
    return { runIds: [runId], tags: [tag] };
  }
  const request = startRequest(spec, tag);
  const send = (base: string) => fetch(`${base}${request.path}`, { method: 'POST', headers, body: JSON.stringify(request.body) });
  await send(orchestrator.url).then((res) => res.text(), () => undefined);
  await diedAt(orchestrator.child, point);
  const res = await send(stack.api.url);
  const body = (await res.json()) as { run_id?: string; run_ids?: string[]; batch_id?: string };
  assert.equal(res.status, 202, JSON.stringify(body));
  const runIds = body.run_ids ?? [body.run_id as string];
  const listed = await stack.json<{ runs: { run_id: string }[] }>(`/v1/runs?pipeline=${spec.pipeline}&limit=50`);
  assert.deepEqual(listed.body.runs.map((run) => run.run_id).sort(), [...runIds].sort(), 'the runs the request made are listed, each once, and no others');
  return { runIds, tags: request.tags, ...(body.batch_id ? { batchId: body.batch_id } : {}) };
}

/**
 * The schedule's runs once the killed tick and the next one have run: the schedule is then removed,
 * and every tick queued by then has been processed. Each run's calls are tagged by its id.
 */
async function ticksAfterRecovery(stack: TestStack, pipeline: string): Promise<Started> {
  const completed = async () => (await stack.json<{ runs: { run_id: string; status: string }[] }>(`/v1/runs?pipeline=${pipeline}&limit=100`)).body.runs.filter((run) => run.status === 'completed').length;
  await waitFor(completed, (count) => count >= 2, 'two ticks have run', 60_000);
  assert.equal((await stack.request('/v1/schedules/cx-tick', { method: 'DELETE' })).status, 200);
  const ticks = new Queue(QUEUES.scheduleTick, { connection: redis, prefix: stack.prefix });
  try {
    await waitFor(() => ticks.getJobCounts('wait', 'delayed', 'active', 'prioritized'), (counts) => Object.values(counts).every((n) => n === 0), 'no tick is left to process', 30_000);
  } finally {
    await ticks.close();
  }
  const runIds = (await stack.json<{ runs: { run_id: string }[] }>(`/v1/runs?pipeline=${pipeline}&limit=100`)).body.runs.map((run) => run.run_id);
  return { runIds, tags: runIds };
}

/** The request that answers (or cancels) a waiting run. */
async function answerOf(stack: TestStack, send: NonNullable<CrashCase['send']>, runId: string): Promise<{ path: string; method: string; body?: unknown }> {
  if (send === 'signal') return { path: `/v1/runs/${runId}/signals/go`, method: 'POST', body: { ok: true } };
  // Its call's job parked (a cancel or answer while it is on its way there is not what these cases are about).
  await waitFor(() => redis.zcard(`${stack.prefix}:tool-ledger:delayed`), (parked) => parked > 0, 'the call waiting for its approval is parked', 30_000);
  if (send === 'cancel') return { path: `/v1/runs/${runId}`, method: 'DELETE' };
  const inbox = await waitFor(() => stack.json<{ items: { run_id: string; answer_url: string }[] }>(`/v1/inbox?run_id=${runId}`), ({ body }) => body.items.length > 0, 'the inbox lists the call', 30_000);
  return { path: (inbox.body.items[0] as { answer_url: string }).answer_url, method: 'POST', body: { approve: true } };
}

/** The run's MCP calls, by the idempotency key each carried (`<run>/<stage>/<turn>/<index>`). */
function checkMcpCalls(runId: string, expected: NonNullable<CrashCase['mcpCalls']>): void {
  const keys = mcpServer.metas.map((meta) => String(meta?.[IDEMPOTENCY_META_KEY] ?? '')).filter((key) => key.startsWith(`${runId}/`));
  process.stdout.write(`# ${runId}: MCP calls ${keys.length}, keys ${[...new Set(keys)].join(' ')}\n`);
  if (expected === 'once') assert.equal(keys.length, 1, 'the MCP call whose result was recorded was made once');
  else assert.ok(keys.length >= 2, `the MCP call whose result was not recorded is made again (${keys.length})`);
  assert.equal(new Set(keys).size, 1, 'every attempt of the call carries its one idempotency key');
}

const WEBHOOK_SECRET = 'crash-points-webhook-secret';
/** Idempotency-Key of each webhook delivery the receiver got, by the port it listens on. */
const deliveries = new Map<number, string[]>();
let receiver: Server | undefined;
const receiverPort = () => (receiver?.address() as AddressInfo).port;

/** A webhook receiver on loopback, started once, recording each delivery's Idempotency-Key. */
async function webhookReceiver(): Promise<string> {
  if (!receiver) {
    receiver = createServer((req, res) => {
      const port = receiverPort();
      deliveries.set(port, [...(deliveries.get(port) ?? []), String(req.headers['idempotency-key'] ?? '')]);
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${receiverPort()}/hook`;
}

async function crashAt(point: string, spec: CrashCase): Promise<void> {
  const ledger = await startLedgerService();
  const hook = spec.webhook ? await webhookReceiver() : undefined;
  const webhookEnv: Record<string, string> = hook ? { WEBHOOK_ALLOW: `127.0.0.1:${receiverPort()}`, WEBHOOK_SECRET } : {};
  const stack = await startTestStack({ label: `crash-${point}`, toolEnv: ledger.toolEnv, inProcessWorkers: false, agents: { mcp: fixtureSources() }, ...(hook ? { webhooks: { allow: parseAllowList(`127.0.0.1:${receiverPort()}`), secret: WEBHOOK_SECRET, timeoutMs: 2000, responseMaxBytes: 4096 } } : {}) });
  const pool = new WorkerProcesses(() => stack);
  const orchestrators = new OrchestratorProcesses(() => ({ ...stack, apiKey: TEST_API_KEY }));
  let recovery: RunningWorkers | undefined;
  let approving: { stop(): void } | undefined;
  try {
    for (const definition of PIPELINES) await registerPipeline(stack, definition);
    let started: Started;
    if (spec.armed === 'orchestrator') {
      recovery = await recoveryWorkers(stack, spec);
      started = await crashOrchestrator(point, spec, stack, ledger, orchestrators);
    } else {
      const armed = await pool.startListening({ TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', MCP_SERVERS: JSON.stringify({ fixture: { url: mcpServer.url } }), SWITCHYARD_CRASH_POINT: point, LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '500', ...webhookEnv, ...spec.workerEnv });
      ledger.faults.failNext = spec.failNext ?? 0;
      if (spec.start === 'schedule') {
        assert.equal((await stack.json(`/v1/schedules/cx-tick`, { method: 'PUT', body: JSON.stringify({ pipeline: spec.pipeline, every: '2s', input: {} }) })).status, 201);
        started = { runIds: [], tags: [] };
      } else {
        const request = startRequest(spec, `t-${point}`, hook);
        const { status, body } = await stack.json<{ run_id?: string; run_ids?: string[]; batch_id?: string }>(request.path, { method: 'POST', body: JSON.stringify(request.body) });
        assert.equal(status, 202, JSON.stringify(body));
        started = { runIds: body.run_ids ?? [body.run_id as string], tags: request.tags, ...(body.batch_id ? { batchId: body.batch_id } : {}) };
      }
      await diedAt(armed, point);
      // Answered before any worker runs again: the call's job may then resolve the wait before the killed job is taken over.
      approving = spec.approve ? approveAll(stack, started.runIds[0] as string) : undefined;
      recovery = await recoveryWorkers(stack, spec);
      if (spec.start === 'schedule') started = await ticksAfterRecovery(stack, spec.pipeline);
    }
    for (const [i, runId] of started.runIds.entries()) {
      const run = await finishedRun(stack, runId, 90_000);
      assert.equal(run.status, spec.expect.status, JSON.stringify(run.error ?? run.stages));
      if (spec.expect.status === 'failed') assert.equal(run.error?.stage, spec.expect.stage);
      const runs = await runsOf(stack, runId);
      if (spec.expect.status === 'cancelled') for (const each of runs) assert.equal((await finishedRun(stack, each.run_id, 30_000)).status, 'cancelled', `${each.run_id} is cancelled with its parent`);
      assert.deepEqual(callsAfterRecorded(ledger, started.tags[i] as string, runs), [], 'no call made again after its result was recorded');
      if (spec.mcpCalls) checkMcpCalls(runId, spec.mcpCalls);
      for (const each of runs) await checkEvents(stack, each);
      for (const each of runs) await waitFor(() => leftovers(redis, each.run_id), (left) => left.length === 0, `nothing of ${each.run_id} is left that retention will not remove`, 30_000);
    }
    // A run admitted twice, or never released, would hold room under its key's bound for good.
    const live = runKeys(stack.prefix);
    await waitFor(async () => [await redis.zcard(live.liveRuns), await redis.hlen(live.liveRunCounts)], ([runs, keys]) => runs === 0 && keys === 0, 'every admission under the bound of live runs is released', 30_000);
    if (hook) {
      // Delivered before the kill, and again by the worker that took the job over: with the one key.
      const keys = await waitFor(async () => deliveries.get(receiverPort()) ?? [], (got) => got.length >= 2, 'the webhook is delivered again after the kill', 30_000);
      assert.equal(new Set(keys).size, 1, `every delivery carries the same Idempotency-Key: ${keys.join(' ')}`);
      assert.ok(keys[0], 'deliveries carry an Idempotency-Key');
    }
    // A tick claimed and never written would be a run key of no TTL (a tick lost).
    if (spec.start === 'schedule') await waitFor(() => leftovers(redis, `${stack.prefix.slice(0, -1)}*run_`), (left) => left.length === 0, 'no run key is left that retention will not remove', 30_000);
    if (started.batchId) await waitFor(() => leftovers(redis, started.batchId as string), (left) => left.length === 0, `nothing of ${started.batchId} is left that retention will not remove`, 30_000);
  } finally {
    approving?.stop();
    await pool.killAll();
    await orchestrators.killAll();
    await recovery?.close(2000);
    await stack.close();
    await ledger.close();
  }
}

describe('a process killed at each crash point', { concurrency: 4 }, () => {
  for (const point of points) {
    const specs = [CASES[point] ?? []].flat();
    for (const spec of specs) {
      test(`${spec.armed ?? 'worker'} killed at ${point} in ${spec.start === 'batch' ? 'a batch of ' : ''}${spec.pipeline}, the stack recovers: the run ends as it would have, no recorded call made again, events once and in order, nothing left behind`, async () => {
        await crashAt(point, spec);
      });
    }
  }
});
