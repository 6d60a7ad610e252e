/**
 * `npm run chaos -- hostile`: what a caller with a valid key can send to hang or exhaust a
 * process (hostile expressions, and the hostile requests: bombs, huge or deep bodies, costly
 * schemas), sent at a rate to the whole stack (separate processes), while stories run beside it.
 * The attacks on agents and people in the loop go beside them (hostile-agents.ts: a read key
 * answering through elicitation, a self-calling fan-out, a huge reason in the inbox, hung model
 * streams beside ordinary agent runs, a wrong-key flood beside a valid key).
 * Each process (the API, the workers, the MCP bridge) must keep answering (its own event-loop
 * delay, read from its `/metrics`, under 100 ms p99) and grow by at most 100 MB of RSS, no worker
 * may die, every hostile run must fail with a clear error naming its place, every attack must be
 * refused as its bound says, and the stories must complete in about their usual time.
 */
import { randomBytes } from 'node:crypto';
import { HOSTILE_EXPRESSIONS, HOSTILE_REQUESTS, LINEAR_REGEX, type HostileRequest } from '../../services/orchestrator/src/testing/hostile.js';
import { say, until, withStack, type ChaosStack, type ScenarioOptions, type ScenarioResult } from './harness.js';
import { AGENT_ATTACK_PIPELINES, agentAttacks, CHAOS_DESCENDANTS, CHAOS_STREAM_IDLE_MS, READ_KEY, startHostileModels } from './hostile-agents.js';

/** Most a process's RSS may grow over the attacks, MB. */
const MAX_RSS_GROWTH_MB = 100;

interface RunView {
  status: string;
  error: { code: string; message: string } | null;
  stages: { error: { code: string; message: string } | null }[];
}

const ENDED = ['completed', 'failed', 'cancelled'];

async function waitEnded(stack: ChaosStack, runId: string, timeoutMs: number): Promise<RunView | undefined> {
  let view: RunView | undefined;
  await until(async () => {
    view = (await stack.get<RunView>(`/v1/runs/${runId}`)).body;
    return ENDED.includes(view.status);
  }, timeoutMs, 250);
  return view && ENDED.includes(view.status) ? view : undefined;
}

/** A story from its start to its end, in ms (undefined when it did not complete). */
async function canary(stack: ChaosStack, label: string): Promise<number | undefined> {
  const started = Date.now();
  const { run_id } = await stack.post<{ run_id: string }>('/v1/stories', { topic: `a canary ${label}` });
  const view = await waitEnded(stack, run_id, 120_000);
  return view?.status === 'completed' ? Date.now() - started : undefined;
}

/** One process's figures from its own `/metrics`. */
async function processFigures(url: string): Promise<{ lag_p99_ms: number; lag_max_ms: number; rss_mb: number }> {
  const text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return { lag_p99_ms: Math.round(read('nodejs_eventloop_lag_p99_seconds') * 1e4) / 10, lag_max_ms: Math.round(read('nodejs_eventloop_lag_max_seconds') * 1e4) / 10, rss_mb: Math.round(read('process_resident_memory_bytes') / 1e5) / 10 };
}

/** Polls each process's /health until `stop`; the slowest answer per process, in ms. */
function pollHealth(urls: string[]): { stop(): Promise<number[]> } {
  let polling = true;
  const slowest = urls.map(() => 0);
  const loops = urls.map(async (url, i) => {
    while (polling) {
      const started = performance.now();
      const res = await fetch(url, { signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
      await res?.arrayBuffer();
      slowest[i] = Math.max(slowest[i] ?? 0, performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  return {
    async stop() {
      polling = false;
      await Promise.all(loops);
      return slowest.map(Math.round);
    },
  };
}

/** Sends a hostile request; answers a line when its status is not the one that refuses it. */
async function wrongAnswer(stack: ChaosStack, probe: HostileRequest): Promise<string | undefined> {
  const headers = { authorization: stack.headers.authorization ?? '', ...(probe.body ? { 'content-type': probe.contentType ?? 'application/json' } : {}) };
  const res = await fetch(`${stack.apiUrl}${probe.path}`, { method: probe.method, headers, ...(probe.body ? { body: probe.body() } : {}), signal: AbortSignal.timeout(60_000) }).catch((error: unknown) => error as Error);
  if (res instanceof Error) return `${probe.name}: ${res.message}`;
  await res.arrayBuffer();
  return res.status === probe.status ? undefined : `${probe.name}: ${res.status}, not ${probe.status}`;
}

const budgetErrorIn = (view: RunView | undefined) => [view?.error, ...(view?.stages ?? []).map((s) => s.error)].find((e) => e?.code === 'expression_budget_exceeded');

export async function hostile({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const rounds = Math.max(1, size(6) / 2);
  const models = await startHostileModels();
  const apiKey = `chaos-${randomBytes(16).toString('hex')}`;
  const env = { API_KEYS: `${apiKey},${READ_KEY}:read`, MODELS: models.env, RUN_MAX_DESCENDANTS: String(CHAOS_DESCENDANTS), LLM_STREAM_IDLE_MS: String(CHAOS_STREAM_IDLE_MS) };
  return withStack({ redis, scenario: 'hostile', workers: 2, mcp: true, apiKey, env }, async (stack) => {
    const definitions = [...[...HOSTILE_EXPRESSIONS, LINEAR_REGEX].map((pipeline) => ({ name: pipeline.name, ...pipeline.definition })), ...AGENT_ATTACK_PIPELINES];
    for (const definition of definitions) {
      const res = await fetch(`${stack.apiUrl}/v1/pipelines/${definition.name}`, { method: 'PUT', headers: stack.headers, body: JSON.stringify(definition) });
      if (res.status >= 300) throw new Error(`PUT ${definition.name}: ${res.status} ${await res.text()}`);
    }
    const usual = [await canary(stack, 'before 1'), await canary(stack, 'before 2')];
    const pids = stack.workers().map((w) => w.process.pid);
    const before = await Promise.all(stack.metricsUrls.map(processFigures)); // a scrape starts each lag histogram anew
    const health = pollHealth(stack.metricsUrls.map((url) => url.replace(/\/metrics$/, '/health')));
    say(`  hostile: ${rounds} rounds of ${HOSTILE_EXPRESSIONS.length} hostile runs, with stories beside them`);
    const attacks: Array<Promise<{ name: string; place: string; view: RunView | undefined }>> = [];
    const canaries: Array<Promise<number | undefined>> = [];
    const requests: Array<Promise<string | undefined>> = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const probe of HOSTILE_REQUESTS) requests.push(wrongAnswer(stack, probe));
      for (const attack of HOSTILE_EXPRESSIONS) {
        attacks.push(stack.post<{ run_id: string }>(`/v1/pipelines/${attack.name}/runs`, attack.input ?? {}).then(async ({ run_id }) => ({ name: attack.name, place: attack.place, view: await waitEnded(stack, run_id, 300_000) })));
      }
      canaries.push(canary(stack, `during ${round}`));
    }
    const linear = stack.post<{ run_id: string }>(`/v1/pipelines/${LINEAR_REGEX.name}/runs`, LINEAR_REGEX.input).then(({ run_id }) => waitEnded(stack, run_id, 120_000));
    const agentSide = agentAttacks(stack, stack.mcpUrl ?? '');
    canaries.push(canary(stack, 'beside the agent attacks'));
    const ended = await Promise.all(attacks);
    const wrong = (await Promise.all(requests)).filter((line): line is string => line !== undefined);
    const during = await Promise.all(canaries);
    const linearRun = await linear;
    const agentsHeld = await agentSide;
    const slowestHealth = await health.stop();
    const processes = await Promise.all(stack.metricsUrls.map(processFigures));
    const unclear = ended.filter((run) => !budgetErrorIn(run.view)?.message.includes(run.place)).map((run) => `${run.name}: ${run.view?.status ?? 'not ended'} ${JSON.stringify(run.view?.error)}`);
    const usualMs = Math.max(...usual.map((ms) => ms ?? Infinity));
    const figures = {
      hostile_requests: requests.length,
      requests_answered_otherwise: wrong.slice(0, 5),
      hostile_runs: ended.length,
      failed_with_budget_naming_place: ended.length - unclear.length,
      unclear: unclear.slice(0, 5),
      linear_regex_run: linearRun?.status ?? 'not ended',
      canary_ms_before: usual,
      canary_ms_during: during,
      processes: stack.metricsUrls.map((url, i) => ({ url, ...processes[i], rss_growth_mb: Math.round(((processes[i]?.rss_mb ?? 0) - (before[i]?.rss_mb ?? 0)) * 10) / 10, slowest_health_ms: slowestHealth[i] })),
      agent_attacks: agentsHeld.figures,
      workers_replaced: pids.filter((pid) => !stack.workers().some((w) => w.process.pid === pid)).length,
    };
    const passed =
      unclear.length === 0 &&
      wrong.length === 0 &&
      linearRun?.status === 'completed' &&
      during.every((ms) => ms !== undefined && ms <= Math.max(3 * usualMs, usualMs + 5000)) &&
      processes.every((p) => p.lag_p99_ms < 100) &&
      processes.every((p, i) => p.rss_mb - (before[i]?.rss_mb ?? 0) <= MAX_RSS_GROWTH_MB) &&
      agentsHeld.passed &&
      figures.workers_replaced === 0;
    return { scenario: 'hostile', passed, figures };
  }).finally(() => models.close());
}
