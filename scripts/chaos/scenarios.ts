/**
 * The fault scenarios of `npm run chaos`, each on a stack of its own (separate processes, loopback
 * only, every loop bounded in count and time). Each returns its figures and whether it passed.
 */
import { malformedBodies, malformedRunPaths } from '../../services/orchestrator/src/testing/malformed.js';
import { auditRuns } from './audit.js';
import { hostile } from './hostile.js';
import { plainJsonata } from './plain-jsonata.js';
import { readRunEvents, say, until, withStack, type ChaosStack, type ScenarioOptions, type ScenarioResult } from './harness.js';
import { redisFootprint } from './redis-footprint.js';
import { workerKillRate } from './worker-kill-rate.js';
import { killAll } from './kill-all.js';
import { POISON_AFTER_SOLO_DEATHS, SUSPECT_AFTER_STALLS } from '../../services/workers/src/engine/solo-jobs.js';

const topics = (n: number, label: string) => Array.from({ length: n }, (_, i) => ({ topic: `${label} ${i}` }));


/** 100 stories while every tool service fails 30 % of its calls with 503 and cuts 20 % of its streams. */
export async function toolFaults({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const n = size(100);
  return withStack({ redis, scenario: 'tool-faults', env: { FAULT_FAILURE_RATE: '0.3', FAULT_STREAM_CUT_RATE: '0.2' } }, async (stack) => {
    const { run_ids } = await stack.post<{ run_ids: string[] }>('/v1/batches', { items: topics(n, 'a flaky harbour') });
    const audit = await auditRuns(stack, run_ids, { endWithinMs: 600_000 });
    const passed = audit.completed === n && audit.doubled_sections === 0 && audit.duplicated_events === 0;
    return { scenario: 'tool-faults', passed, figures: { failure_rate: 0.3, stream_cut_rate: 0.2, ...audit } };
  });
}

/**
 * One stage job whose worker is SIGKILLed each time it runs it, also when it runs alone: it is
 * taken for poison (solo-jobs.ts), its run fails with `poison_job` once, with one `done` event.
 */
export async function stalledJob({ redis }: ScenarioOptions): Promise<ScenarioResult> {
  const deaths = SUSPECT_AFTER_STALLS + POISON_AFTER_SOLO_DEATHS;
  return withStack({ redis, scenario: 'stalled-job', workers: 1, env: { LOCK_DURATION_MS: '4000', STALLED_INTERVAL_MS: '1000', FAULT_LATENCY_MS: '600000' } }, async (stack) => {
    const { run_id } = await stack.post<{ run_id: string }>('/v1/stories', { topic: 'a search that never answers' });
    let kills = 0;
    for (; kills < deaths; kills += 1) {
      const started = await until(async () => {
        const run = await stack.get<{ stages: { name: string; attempts: number }[] }>(`/v1/runs/${run_id}`);
        return (run.body.stages.find((s) => s.name === 'search')?.attempts ?? 0) > kills && stack.workers().length > 0;
      }, 60_000);
      if (!started) break;
      stack.workers()[0]?.process.kill('SIGKILL');
      say(`  stalled-job: worker killed holding the search job (${kills + 1}/${deaths})`);
    }
    const killedAt = Date.now();
    const ended = await until(async () => ['failed', 'completed', 'cancelled'].includes((await stack.get<{ status: string }>(`/v1/runs/${run_id}`)).body.status), 90_000, 250);
    const run = await stack.get<{ status: string; error: { code: string } | null }>(`/v1/runs/${run_id}`);
    const events = ended ? await readRunEvents(stack, run_id, 10_000) : [];
    const figures = { kills, ended, ended_after_ms: ended ? Date.now() - killedAt : null, status: run.body.status, error: run.body.error?.code ?? null, done_events: events.filter((e) => e.type === 'done').length };
    return { scenario: 'stalled-job', passed: kills === deaths && ended && run.body.status === 'failed' && figures.error === 'poison_job' && figures.done_events === 1, figures };
  });
}

/** A worker SIGKILLed mid-batch: every story completes, and no finished stage runs again. */
export async function workerKill({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const n = size(200);
  return withStack({ redis, scenario: 'worker-kill', env: { LOCK_DURATION_MS: '5000', STALLED_INTERVAL_MS: '1000', FAULT_LATENCY_MS: '20' } }, async (stack) => {
    const { run_ids } = await stack.post<{ run_ids: string[] }>('/v1/batches', { items: topics(n, 'a ferry that keeps time') });
    await until(async () => (await stack.get<{ status: string }>(`/v1/runs/${run_ids[Math.floor(n / 4)]}`)).body.status !== 'queued', 120_000);
    stack.workers()[0]?.process.kill('SIGKILL');
    say('  worker-kill: a worker killed mid-batch');
    const audit = await auditRuns(stack, run_ids, { endWithinMs: 600_000 });
    return { scenario: 'worker-kill', passed: audit.completed === n && audit.redone_stages === 0 && audit.duplicated_events === 0, figures: { ...audit } };
  });
}

/** How long the API takes to answer while Redis is gone: it must say 503 within a second. */
async function probeDuringOutage(stack: ChaosStack): Promise<{ probes: number; slowest_ms: number; statuses: Record<string, number> }> {
  const statuses: Record<string, number> = {};
  let slowest = 0;
  let probes = 0;
  for (const [method, path, body] of [['GET', '/health', undefined], ['POST', '/v1/stories', { topic: 'during the outage' }], ['GET', '/v1/runs?limit=1', undefined]] as const) {
    const started = performance.now();
    const res = await fetch(`${stack.apiUrl}${path}`, { method, headers: stack.headers, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(10_000) }).catch(() => null);
    slowest = Math.max(slowest, performance.now() - started);
    probes += 1;
    statuses[String(res?.status ?? 'no answer')] = (statuses[String(res?.status ?? 'no answer')] ?? 0) + 1;
    await res?.body?.cancel();
  }
  return { probes, slowest_ms: Math.round(slowest), statuses };
}

/** Redis shut down and killed mid-batch, each time restarted on the same port and data. */
export async function redisRestart({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const n = size(100);
  return withStack({ redis, scenario: 'redis-restart', env: { FAULT_LATENCY_MS: '20' } }, async (stack) => {
    const outages: Record<string, unknown>[] = [];
    const runIds: string[] = [];
    for (const how of ['shutdown', 'kill'] as const) {
      const { run_ids } = await stack.post<{ run_ids: string[] }>('/v1/batches', { items: topics(n / 2, `a lighthouse after the ${how}`) });
      runIds.push(...run_ids);
      await until(async () => (await stack.get<{ status: string }>(`/v1/runs/${run_ids[Math.floor(n / 8)]}`)).body.status !== 'queued', 120_000);
      await (how === 'kill' ? redis.kill() : redis.shutdown());
      const probe = await probeDuringOutage(stack);
      await redis.up();
      outages.push({ how, ...probe });
      say(`  redis-restart: Redis ${how} and back; the API answered ${JSON.stringify(probe.statuses)}, slowest ${probe.slowest_ms} ms`);
    }
    const audit = await auditRuns(stack, runIds, { endWithinMs: 600_000 });
    const fastAnswers = outages.every((o) => (o.slowest_ms as number) < 1000);
    const passed = audit.completed === n && audit.lost === 0 && audit.stuck === 0 && audit.duplicated_events === 0 && audit.doubled_sections === 0 && fastAnswers;
    return { scenario: 'redis-restart', passed, figures: { outages, ...audit } };
  });
}

/** At least 40 malformed requests per endpoint: no 5xx, and Redis unchanged. */
export async function malformed({ redis }: ScenarioOptions): Promise<ScenarioResult> {
  return withStack({ redis, scenario: 'malformed' }, async (stack) => {
    const before = await redisFootprint(redis.url, stack.prefix);
    const byStatus: Record<string, number> = {};
    const fiveHundreds: string[] = [];
    const send = async (url: string, init: RequestInit, name: string) => {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) }).catch(() => null);
      const status = String(res?.status ?? 'no answer');
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      if (!res || res.status >= 500) fiveHundreds.push(`${name}: ${status}`);
      await res?.body?.cancel();
    };
    const auth = { authorization: stack.headers.authorization ?? '' };
    for (const path of ['/v1/stories', '/v1/batches', '/v1/aceflow/runs']) {
      for (const request of malformedBodies()) await send(`${stack.apiUrl}${path}`, { method: 'POST', headers: { ...auth, ...request.headers }, body: request.body as RequestInit['body'] }, `${path} ${request.name}`);
    }
    for (const path of malformedRunPaths) for (const method of ['GET', 'DELETE']) await send(`${stack.apiUrl}${path}`, { method, headers: auth }, `${method} ${path}`);
    const tools = { search: 'search_relevant_information', outline: 'generate_structured_outline', writing: 'write_story_section', editing: 'polish_story' } as const;
    for (const [service, url] of Object.entries(stack.toolServices)) {
      const tool = tools[service as keyof typeof tools];
      for (const request of malformedBodies()) await send(`${url}/run/${tool}`, { method: 'POST', headers: { authorization: `Bearer ${stack.toolKey}`, ...request.headers }, body: request.body as RequestInit['body'] }, `${service} ${request.name}`);
    }
    const after = await redisFootprint(redis.url, stack.prefix);
    const sent = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return { scenario: 'malformed', passed: fiveHundreds.length === 0 && after.keys === before.keys && Object.keys(stack.toolServices).length === 4, figures: { sent, endpoints: 3 + Object.keys(stack.toolServices).length, by_status: byStatus, five_hundreds: fiveHundreds, redis_keys_before: before.keys, redis_keys_after: after.keys } };
  });
}

/** A batch with a retention of a few seconds: afterwards Redis holds what it held before. */
export async function retention({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  const n = size(50);
  return withStack({ redis, scenario: 'retention', env: { RUN_RETENTION_S: '3', RETENTION_PASS_MS: '1000' } }, async (stack) => {
    // One warm-up batch makes the queues' own keys; they stay with any deployment.
    const warm = await stack.post<{ run_ids: string[] }>('/v1/batches', { items: topics(2, 'warm-up') });
    await auditRuns(stack, warm.run_ids, { endWithinMs: 60_000 });
    await until(async () => (await redisFootprint(redis.url, stack.prefix)).runKeys === 0, 120_000, 500);
    await new Promise((r) => setTimeout(r, 3000)); // a janitor pass or two: the warm-up's jobs go too
    const before = await redisFootprint(redis.url, stack.prefix);
    const { run_ids } = await stack.post<{ run_ids: string[] }>('/v1/batches', { items: topics(n, 'a tide that goes out') });
    const audit = await auditRuns(stack, run_ids, { endWithinMs: 300_000 });
    const during = await redisFootprint(redis.url, stack.prefix);
    // Retention (3 s) plus the janitor's passes (every second) plus a margin.
    await until(async () => (await redisFootprint(redis.url, stack.prefix)).keys <= before.keys, 60_000, 1000);
    const after = await redisFootprint(redis.url, stack.prefix);
    const figures = { completed: audit.completed, before, during, after };
    return { scenario: 'retention', passed: audit.completed === n && after.keys === before.keys && Math.abs(after.bytes - before.bytes) <= 1024, figures };
  });
}

/** A worker SIGKILLed every 20 s through a 1,000-story batch at realistic latencies (see worker-kill-rate.ts). */
export async function workerKillRateScenario({ redis, size }: ScenarioOptions): Promise<ScenarioResult> {
  return workerKillRate({ redis, stories: size(1000), killEveryMs: 20_000 });
}

export const SCENARIOS = { 'tool-faults': toolFaults, 'stalled-job': stalledJob, 'worker-kill': workerKill, 'worker-kill-rate': workerKillRateScenario, 'redis-restart': redisRestart, malformed, retention, hostile, 'plain-jsonata': plainJsonata, 'kill-all': killAll } as const;
export type ScenarioName = keyof typeof SCENARIOS;
