/**
 * What an agent's tool call costs the engine next to a plain tool step's (issue #34: "an agent's
 * tool call should cost no more than a step"). N runs of an agent whose model (the scripted stub,
 * zero latency, a process of its own) asks for K parallel calls a turn over T turns, then answers;
 * and N runs of a plain pipeline of T layers of K tool steps: the same K×T calls of the same
 * zero-latency in-process tool. Both go through `POST /v1/batches` on the orchestrator (a process
 * of its own, main.ts) and the workers (in this process), in rounds alternating which goes first,
 * each measured from the batch's POST to its `done` and the compaction of its runs: CPU of the
 * workers (this process), the API (/proc) and Redis (INFO), per tool call. The stub model's CPU
 * is measured apart and not counted. With `profileDir`, one more batch of each is profiled.
 */
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@switchyard/logger';
import { ModelClient, parseModelsConfig } from '@switchyard/models';
import { readEvents, runKeys } from '@switchyard/pipeline';
import { createRedisClient, uniquePrefix } from '@switchyard/redis';
import { createOfflineAuthor, startToolServices } from '@switchyard/tool-services';
import { startWorkers } from '@switchyard/workers';
import type { Redis } from 'ioredis';
import { startBenchChild, type BenchChild } from './agent-processes.js';
import { modelClientCpu } from './agent-model-alone.js';
import { profiled, summarizeProfile } from './agent-profile.js';
import { agentPipeline, plainPipeline, type BenchKind } from './agent-pipelines.js';
import { commandsPerCall, readRedisUse, type RedisUse } from './agent-redis.js';
import { createInstantTools } from './instant-tools.js';
import { deletePrefix, median, round, say } from './story-stats.js';
import { MANUAL_COMPACTION_MS } from './story-switchyard.js';

export interface AgentBenchOptions {
  redisUrl: string;
  /** N: runs of each kind per measurement. */
  runs: number;
  /** K: tool calls the model asks for in each turn (in parallel). */
  calls: number;
  /** T: turns that ask for tools; the model answers on turn T + 1. */
  turns: number;
  /** Measurements of each kind (the medians are reported). */
  rounds: number;
  /** Jobs at once per queue in the workers. */
  concurrency: number;
  /** Where to write one profiled batch of each kind (unset: no profile). */
  profileDir?: string | undefined;
}

const API_KEY = 'bench-agent-key-0123456789';
const KINDS: readonly BenchKind[] = ['agent', 'plain'];

/** CPU of one measured batch, µs per tool call, by process class. */
interface CallCost {
  workers_us: number;
  api_us: number;
  redis_us: number;
  total_us: number;
  stub_model_us: number;
  redis_commands: number;
}

interface Meter {
  self: NodeJS.CpuUsage;
  api: number;
  stub: number;
  redis: RedisUse;
}

async function meter(redis: Redis, api: BenchChild, stub: BenchChild): Promise<Meter> {
  return { self: process.cpuUsage(), api: api.cpuSeconds(), stub: stub.cpuSeconds(), redis: await readRedisUse(redis) };
}

function costBetween(before: Meter, after: Meter, toolCalls: number): CallCost {
  const self = process.cpuUsage(before.self);
  const per = (us: number) => round(us / toolCalls, 1);
  const workers = self.user + self.system;
  const api = (after.api - before.api) * 1e6;
  const redis = after.redis.cpuUs - before.redis.cpuUs;
  return { workers_us: per(workers), api_us: per(api), redis_us: per(redis), total_us: per(workers + api + redis), stub_model_us: per((after.stub - before.stub) * 1e6), redis_commands: round(commandsPerCall(before.redis, after.redis, toolCalls).total, 1) };
}

export async function benchAgentSteps(options: AgentBenchOptions) {
  const { runs, calls, turns } = options;
  const toolCalls = runs * calls * turns;
  const prefix = uniquePrefix('bench-agent');
  const loadAtStart = os.loadavg()[0] ?? 0;
  say(`agent: ${runs} agent runs of ${turns} turns × ${calls} calls against ${runs} plain runs of ${turns} × ${calls} tool steps, ${options.rounds} rounds…`);
  const redis = createRedisClient(options.redisUrl);
  const reader = createRedisClient(options.redisUrl);
  const pipelines = { agent: agentPipeline({ calls, turns }), plain: plainPipeline({ calls, turns }) };
  // Whatever has started is stopped at the end, the last started first.
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const stub = await startBenchChild({ name: 'stub model', script: 'scripts/bench/agent-stub-model.ts', args: [String(calls), String(turns)] });
    stops.unshift(() => stub.stop());
    // Registration checks an agent's tools against the services' listings: the reference services
    // publish them (and are never called: the workers call the instant tools).
    const listings = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'bench-agent-tools', level: 'silent' }) });
    stops.unshift(() => listings.close());
    const serviceUrls = Object.fromEntries(Object.entries(listings.services).map(([key, service]) => [`${key.toUpperCase()}_SERVICE_URL`, service.url]));
    const api = await startBenchChild({ name: 'orchestrator', script: 'services/orchestrator/src/main.ts', env: { REDIS_URL: options.redisUrl, QUEUE_PREFIX: prefix, API_KEYS: API_KEY, PORT: '0', LOG_LEVEL: 'info', ...serviceUrls } });
    stops.unshift(() => api.stop());
    const models = new ModelClient({ models: parseModelsConfig({ env: {}, fallbackBaseUrl: stub.url, fallbackApiKey: 'bench' }) });
    const workers = await startWorkers({
      redisUrl: options.redisUrl,
      prefix,
      logger: createLogger({ name: 'bench-agent', level: 'silent' }),
      tools: createInstantTools(),
      defaultConcurrency: options.concurrency,
      compaction: { intervalMs: MANUAL_COMPACTION_MS, afterMs: 0 },
      agents: { models },
    });
    stops.unshift(() => workers.close(5000));
    const http = async (method: string, route: string, body: unknown) => {
      const res = await fetch(`${api.url}${route}`, { method, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${method} ${route} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      return (await res.json()) as Record<string, unknown>;
    };
    for (const kind of KINDS) await http('PUT', `/v1/pipelines/${pipelines[kind].name}`, pipelines[kind]);
    /** One batch of `count` runs of `kind`, to its `done` and the compaction of its runs. */
    const batch = async (kind: BenchKind, count: number) => {
      const items = Array.from({ length: count }, (_, i) => ({ topic: `${kind} run ${i}` }));
      const accepted = await http('POST', '/v1/batches', { pipeline: pipelines[kind].name, items });
      const counts = await batchDone(reader, runKeys(prefix).batchEvents(String(accepted.batch_id)));
      await workers.compactor.pass();
      if (counts.completed !== count) throw new Error(`${kind}: ${counts.completed ?? 0} of ${count} runs completed: ${JSON.stringify(counts)}`);
    };
    say('agent: warming up…');
    for (const kind of KINDS) await batch(kind, Math.min(runs, 20));
    const costs: Record<BenchKind, CallCost[]> = { agent: [], plain: [] };
    const modelTurns: number[] = [];
    const plainModelRequests: number[] = [];
    const modelAlone: number[] = [];
    const commands: Partial<Record<BenchKind, Record<string, number>>> = {};
    for (let r = 1; r <= options.rounds; r += 1) {
      for (const kind of r % 2 === 1 ? KINDS : [...KINDS].reverse()) {
        say(`agent round ${r}/${options.rounds}: ${runs} ${kind} runs…`);
        const requestsBefore = (await stub.ask<{ requests: number }>('counters')).requests;
        const before = await meter(redis, api, stub);
        await batch(kind, runs);
        const after = await meter(redis, api, stub);
        costs[kind].push(costBetween(before, after, toolCalls));
        commands[kind] = commandsPerCall(before.redis, after.redis, toolCalls).top;
        const requests = (await stub.ask<{ requests: number }>('counters')).requests - requestsBefore;
        (kind === 'agent' ? modelTurns : plainModelRequests).push(requests);
      }
      say(`agent round ${r}/${options.rounds}: the model client alone, the same ${runs * (turns + 1)} turns…`);
      modelAlone.push((await modelClientCpu(models, { runs, calls, turns, concurrency: options.concurrency })).us_per_turn);
    }
    const medians = (kind: BenchKind) => Object.fromEntries(Object.keys(costs[kind][0] ?? {}).map((field) => [field, median(costs[kind].map((c) => c[field as keyof CallCost]))])) as unknown as CallCost;
    const ratios = costs.agent.map((agent, i) => round(agent.total_us / (costs.plain[i]?.total_us ?? Number.NaN), 2));
    const modelUsPerCall = round((median(modelAlone) * (turns + 1)) / (turns * calls), 1);
    const agentTotal = medians('agent').total_us;
    const profile = options.profileDir ? await profileBoth(options.profileDir, batch, { runs, toolCalls }) : undefined;
    return {
      shape: { runs, calls_per_turn: calls, turns_with_calls: turns, model_turns_per_run: turns + 1, tool_calls_per_measurement: toolCalls, concurrency_per_queue: options.concurrency, tools: 'in-process, zero latency', model: 'scripted stub, zero latency, its own process' },
      measured_as: 'CPU from POST /v1/batches to the batch done and its runs compacted; workers = this process (workers and the bench driver), API = the orchestrator process, Redis = INFO cpu; the stub model apart, not counted; medians of the rounds',
      model_requests_per_round: modelTurns,
      model_requests_per_plain_round: plainModelRequests,
      agent_per_tool_call: medians('agent'),
      plain_per_tool_call: medians('plain'),
      rounds: { agent_total_us: costs.agent.map((c) => c.total_us), plain_total_us: costs.plain.map((c) => c.total_us), ratio: ratios },
      ratio_agent_over_plain: median(ratios),
      target_ratio_max: 1,
      /** The same turns through the model client alone (LangChain, HTTP, stream parsing; no job, transcript or event): this process's CPU. */
      model_client_alone: { us_per_turn_rounds: modelAlone, us_per_turn: median(modelAlone), us_per_tool_call: modelUsPerCall },
      agent_less_model_client_us_per_tool_call: round(agentTotal - modelUsPerCall, 1),
      ratio_less_model_client: round((agentTotal - modelUsPerCall) / medians('plain').total_us, 2),
      /** The ten most called, in the last round. */
      redis_top_commands_per_tool_call: commands,
      profile,
      load_avg_1m: { start: round(loadAtStart, 2), end: round(os.loadavg()[0] ?? 0, 2) },
    };
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    await deletePrefix(redis, prefix).catch(() => undefined);
    redis.disconnect();
    reader.disconnect();
  }
}

/** One profiled batch of each kind: where this process spends, per tool call. */
async function profileBoth(dir: string, batch: (kind: BenchKind, count: number) => Promise<void>, options: { runs: number; toolCalls: number }) {
  const summaries: Record<string, unknown> = {};
  for (const kind of KINDS) {
    const file = path.join(dir, `agent-bench-${kind}.cpuprofile`);
    say(`agent: profiling ${options.runs} ${kind} runs into ${file}…`);
    const { profile } = await profiled(file, () => batch(kind, options.runs));
    summaries[kind] = { file, ...summarizeProfile(profile, options.toolCalls) };
  }
  return summaries;
}

/** Follows a batch's event stream to its `done`; its counts. */
async function batchDone(reader: Redis, key: string): Promise<Record<string, number>> {
  let after = '0';
  for (let quiet = 0; quiet < 12; ) {
    const events = await readEvents({ redis: reader, key, after, blockMs: 10_000, count: 1000 });
    const done = events.find((e) => e.type === 'done');
    if (done) return (JSON.parse(done.data) as { counts: Record<string, number> }).counts;
    quiet = events.length === 0 ? quiet + 1 : 0;
    after = events.at(-1)?.id ?? after;
  }
  throw new Error(`no event on ${key} for two minutes`);
}
