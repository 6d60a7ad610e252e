/**
 * Everything killed at a rate: for `seconds` (5 minutes by default) a random worker process is
 * SIGKILLed every 3 s (below its 7 s lock) and started again, and the orchestrator every 20 s (a
 * new one started in its place), while stories, agent runs whose calls wait for an approval, runs
 * of a child pipeline and a schedule ticking every 2 s go on. Clients act as careful ones do: a
 * start whose connection dropped is sent again with its `Idempotency-Key`, an approval is answered
 * again until the inbox no longer lists it. Then it checks that every run ended as it should
 * (completed), that no call whose result a run had recorded was made again (the note_fact
 * service's own log) and no stage ran again after it had completed, that no event was written
 * twice, and that no tick started two runs or was claimed and never written; and it prints the
 * figures.
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { startScriptedModel } from '@switchyard/models/testing';
import { createRedisClient } from '@switchyard/redis';
import { startLedgerService, type LedgerService } from '../../services/orchestrator/src/testing/ledger-service.js';
import { OrchestratorProcesses, type OrchestratorChild } from '../../services/orchestrator/src/testing/orchestrator-process.js';
import { registerPipeline, type RunBody } from '../../services/orchestrator/src/testing/pipelines.js';
import { startTestStack, TEST_API_KEY, WorkerProcesses, type TestStack } from '../../services/orchestrator/src/testing/stack.js';
import { callsAfterRecorded, runsOf } from '../../tests/system/testing/crash-checks.js';
import { auditRuns } from './audit.js';
import { say, until, type ScenarioOptions, type ScenarioResult } from './harness.js';

const WORKERS = 3;
const KILL_WORKER_EVERY_MS = 3_000;
const KILL_ORCHESTRATOR_EVERY_MS = 20_000;
const SUBMIT_EVERY_MS = 1_500;
const TICK_EVERY_MS = 2_000;

const note = (key: string, extra: Record<string, unknown> = {}) => ({ tool: 'note_fact', args: { key }, ...extra });
const PIPELINES = [
  { name: 'ka-leaf', input: { type: 'object' }, steps: { note: note("input.tag & '/leaf'") }, output: 'steps.note' },
  { name: 'ka-parent', input: { type: 'object' }, steps: { sub: { pipeline: 'ka-leaf', args: { tag: 'input.tag' } }, after: note("input.tag & '/after'", { needs: ['sub'] }) }, output: 'steps.after' },
  { name: 'ka-approve', input: { type: 'object' }, steps: { think: { agent: { prompt: "'tag:' & input.tag", tools: [{ tool: 'note_fact', approval: 'required' }], max_turns: 3 } } }, output: 'steps.think' },
  { name: 'ka-ticked', input: { type: 'object' }, steps: { a: note("run_id & '/a'"), b: note("run_id & '/b'", { needs: ['a'] }) }, output: 'steps.b' },
];

interface Submitted {
  runId: string;
  kind: 'story' | 'agent' | 'child';
  tag: string;
}

/** The API of the orchestrator process now running; a request that finds none, or a dead one, is sent again. */
class KilledApi {
  current: OrchestratorChild | undefined;
  resent = 0;

  async send(path: string, init: { method: string; body?: unknown; key?: string }, timeoutMs = 180_000): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json', ...(init.key ? { 'idempotency-key': init.key } : {}) };
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      const url = this.current?.url;
      const res = url ? await fetch(`${url}${path}`, { method: init.method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal: AbortSignal.timeout(10_000) }).catch(() => undefined) : undefined;
      if (res && res.status !== 503) return res;
      if (Date.now() > deadline) throw new Error(`${init.method} ${path}: no orchestrator answered within ${timeoutMs} ms`);
      if (attempt === 0) this.resent += 1;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function killAll({ redis: chaosRedis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const seconds = size(300);
  const model = await startScriptedModel({
    script: (request) => {
      const tag = /tag:(\S+)/.exec(String(request.messages.find((m) => m.role === 'user')?.content ?? ''))?.[1] ?? 'none';
      const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
      return turn === 1 ? { content: 'noting', toolCalls: [{ name: 'note_fact', arguments: JSON.stringify({ key: `${tag}/call` }) }] } : { content: 'noted' };
    },
  });
  const ledger = await startLedgerService();
  const stack = await startTestStack({ label: 'chaos-kill-all', redisUrl: chaosRedis.url, toolEnv: ledger.toolEnv, inProcessWorkers: false });
  const redis = createRedisClient(chaosRedis.url);
  const workerEnv = { TOOL_SERVICES: ledger.toolEnv.TOOL_SERVICES as string, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'scripted', LOCK_DURATION_MS: '7000', STALLED_INTERVAL_MS: '1000' };
  const pool = new WorkerProcesses(() => stack);
  const orchestrators = new OrchestratorProcesses(() => ({ ...stack, apiKey: TEST_API_KEY }));
  try {
    for (const definition of PIPELINES) await registerPipeline(stack, definition);
    const api = new KilledApi();
    api.current = await orchestrators.start({ TOOL_SERVICES: workerEnv.TOOL_SERVICES });
    const workers: ChildProcess[] = [];
    for (let i = 0; i < WORKERS; i += 1) workers.push(await pool.startListening(workerEnv));
    const scheduled = await stack.json('/v1/schedules/ka-tick', { method: 'PUT', body: JSON.stringify({ pipeline: 'ka-ticked', every: `${TICK_EVERY_MS / 1000}s`, input: {} }) });
    if (scheduled.status !== 201) throw new Error(`the schedule was refused: ${JSON.stringify(scheduled.body)}`);
    const startedAt = Date.now();
    const endsAt = startedAt + seconds * 1000;
    say(`  kill-all: ${seconds} s: a worker killed every ${KILL_WORKER_EVERY_MS / 1000} s, the orchestrator every ${KILL_ORCHESTRATOR_EVERY_MS / 1000} s`);

    const killed = { workers: 0, orchestrators: 0 };
    // Each kill is timed from the last (a process slow to start on a loaded machine does not bring the next forward).
    const killingWorkers = (async () => {
      for (;;) {
        await new Promise((r) => setTimeout(r, KILL_WORKER_EVERY_MS));
        if (Date.now() >= endsAt) return;
        const i = Math.floor(Math.random() * workers.length);
        await WorkerProcesses.kill(workers[i] as ChildProcess);
        workers[i] = pool.start(workerEnv);
        killed.workers += 1;
      }
    })();
    const killingOrchestrators = (async () => {
      for (;;) {
        await new Promise((r) => setTimeout(r, KILL_ORCHESTRATOR_EVERY_MS));
        if (Date.now() >= endsAt) return;
        const dead = api.current;
        api.current = undefined;
        if (dead) await OrchestratorProcesses.kill(dead.child);
        killed.orchestrators += 1;
        say(`  kill-all: orchestrator killed (${killed.orchestrators}), ${killed.workers} workers killed so far`);
        api.current = await orchestrators.start({ TOOL_SERVICES: workerEnv.TOOL_SERVICES });
      }
    })();
    const killing = Promise.all([killingWorkers, killingOrchestrators]);

    const submitted: Submitted[] = [];
    const submitting = (async () => {
      // The last minute (a quarter of a shorter run) is left for the runs in flight to end under the kills.
      const stopAt = endsAt - Math.min(60_000, seconds * 250);
      for (let n = 0; Date.now() < stopAt; n += 1) {
        const kind = (['story', 'agent', 'child'] as const)[n % 3] as Submitted['kind'];
        const tag = `ka${n}`;
        const [path, body] = kind === 'story' ? ['/v1/stories', { topic: `a lighthouse keeper ${n}` }] : [`/v1/pipelines/${kind === 'agent' ? 'ka-approve' : 'ka-parent'}/runs`, { tag }];
        const res = await api.send(path, { method: 'POST', body, key: randomUUID() });
        const accepted = (await res.json()) as { run_id?: string };
        if (res.status !== 202 || !accepted.run_id) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(accepted)}`);
        submitted.push({ runId: accepted.run_id, kind, tag });
        await new Promise((r) => setTimeout(r, SUBMIT_EVERY_MS));
      }
    })();

    let approvals = 0;
    let approving = true;
    const approver = (async () => {
      while (approving) {
        const { body } = await stack.json<{ items: { answer_url: string }[] }>('/v1/inbox');
        for (const item of body.items ?? []) {
          const res = await api.send(item.answer_url, { method: 'POST', body: { approve: true } }).catch(() => undefined);
          if (res?.ok) approvals += 1;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    await Promise.all([killing, submitting]);
    const tickingS = (Date.now() - startedAt) / 1000;
    const killWindowS = Math.round(tickingS);
    await stack.request('/v1/schedules/ka-tick', { method: 'DELETE' });
    say(`  kill-all: ${submitted.length} runs started, ${killed.workers} workers and ${killed.orchestrators} orchestrators killed; waiting for every run to end`);
    const reader = { apiUrl: stack.api.url, headers: { authorization: `Bearer ${TEST_API_KEY}` }, get: async <T>(path: string) => { const res = await stack.request(path); return { status: res.status, body: (await res.json()) as T }; } };
    const ticked = await tickRuns(stack);
    const audit = await auditRuns(reader, [...submitted.map((s) => s.runId), ...ticked], { endWithinMs: 300_000 });
    approving = false;
    await approver;
    const repeated = await repeatedCalls(stack, ledger, submitted, ticked);
    const unwrittenTicks = await claimedNeverWritten(redis, stack.prefix);
    const figures = {
      seconds,
      /** How long the kills went on (longer than asked when the machine is slow to start a process). */
      kill_window_s: killWindowS,
      workers: WORKERS,
      workers_killed: killed.workers,
      orchestrators_killed: killed.orchestrators,
      started: { story: count(submitted, 'story'), agent_with_approval: count(submitted, 'agent'), child_pipeline: count(submitted, 'child'), schedule_ticks: ticked.length },
      ticks_due: Math.floor((tickingS * 1000) / TICK_EVERY_MS),
      approvals_answered: approvals,
      requests_sent_again: api.resent,
      calls_made: ledger.calls.length,
      /** Calls of a key made again after its result was recorded in its run: must be none. */
      calls_repeated_after_recorded: repeated.length,
      /** Calls made again after an earlier one had completed at the service but was not yet recorded (a worker killed between): allowed. */
      calls_repeated_before_recorded: ledger.repeatedAfterCompletion().length - repeated.length,
      ticks_claimed_never_written: unwrittenTicks,
      ...audit,
    };
    const passed = audit.completed === audit.runs && audit.lost === 0 && audit.stuck === 0 && audit.duplicated_events === 0 && audit.redone_stages === 0 && repeated.length === 0 && unwrittenTicks === 0 && ticked.length <= figures.ticks_due + 1;
    return { scenario: 'kill-all', passed, figures };
  } finally {
    await pool.killAll();
    await orchestrators.killAll();
    await stack.close();
    await ledger.close();
    await model.close();
    redis.disconnect();
  }
}

const count = (runs: readonly Submitted[], kind: Submitted['kind']) => runs.filter((r) => r.kind === kind).length;

/** The schedule's runs, once no tick is left to start one. */
async function tickRuns(stack: TestStack): Promise<string[]> {
  const list = async () => {
    const ids: string[] = [];
    for (let offset = 0; ; offset += 200) {
      const { status, body } = await stack.json<{ runs: { run_id: string }[] }>(`/v1/runs?pipeline=ka-ticked&limit=200&offset=${offset}`);
      if (status !== 200) throw new Error(`GET /v1/runs: ${status} ${JSON.stringify(body)}`);
      ids.push(...body.runs.map((r) => r.run_id));
      if (body.runs.length < 200) return ids;
    }
  };
  let last: string[] = [];
  await until(async () => {
    const now = await list();
    const settled = now.length === last.length;
    last = now;
    return settled;
  }, 30_000, 3_000);
  return last;
}

/** Calls made again after their result was recorded, over every run and its children (calls are keyed by tag, a schedule's by run id). */
async function repeatedCalls(stack: TestStack, ledger: LedgerService, submitted: readonly Submitted[], ticked: readonly string[]): Promise<string[]> {
  const repeated: string[] = [];
  const tagged = [...submitted.filter((s) => s.kind !== 'story').map((s) => [s.runId, s.tag] as const), ...ticked.map((id) => [id, id] as const)];
  for (const [runId, tag] of tagged) {
    const runs: RunBody[] = await runsOf(stack, runId);
    repeated.push(...callsAfterRecorded(ledger, tag, runs));
  }
  return repeated;
}

/** Run hashes holding a tick's claim and no run: a tick claimed, never written, and never to expire. */
async function claimedNeverWritten(redis: Redis, prefix: string): Promise<number> {
  let unwritten = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.slice(0, -1)}:run:run_*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      if (!key.endsWith('}')) continue;
      const [status, claimed] = await redis.hmget(key, 'status', 'tick_claimed_at');
      if (claimed && !status && (await redis.pttl(key)) < 0) unwritten += 1;
    }
  } while (cursor !== '0');
  return unwritten;
}
