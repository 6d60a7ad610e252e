/**
 * What the engine's guarantees cost when written by hand, at the least (`npm run bench --
 * guarantees`). Issue #45 asks whether the engine's cost beyond a plain BullMQ flow is its own
 * overhead or the price of what it keeps; this measures the second directly: the plain flow of
 * story-baseline.ts, then the same flow with, one on top of the other, the least a hand-written
 * flow does to keep
 *
 * 0. `flow_control`: BullMQ's own flow control, as the engine uses it: every job added with a
 *    priority (the engine's fair shares between callers are priorities) and every worker with a
 *    limiter (a queue's rate limit, which `worker.rateLimit()` sets on a 429, holds only on a
 *    worker with one); no fair-share bookkeeping of its own;
 * 1. `run_record`: a run record a client can read (a hash written before its jobs are added, with
 *    an index of live runs, and its status and result at its end) and a batch that tells its end
 *    (counts, and a `done` event on the batch's stream when its last run ends): one script call at
 *    a run's end;
 * 2. `stage_events`: each stage's output kept while the run lives and the stage told on the run's
 *    ordered event stream (what `GET /v1/runs/{id}` and an SSE client read): an `HSET` and an
 *    `XADD` a stage, sent together (one round trip);
 * 3. `archive`: after the run's end, its record and events folded into one compressed archive (the
 *    engine's own encoder) and the live keys dropped, as the engine keeps a completed run (its
 *    result, not its stages' outputs): one round trip to read, one to write. Done once a batch's
 *    runs have all ended, inside its measurement, as Switchyard's compaction pass is, so that a
 *    client following a run reads its end from its stream first.
 *
 * The end-to-end part also runs the last rung behind an HTTP API at its least (story-api-by-hand.ts),
 * measured as Switchyard's is: a request sent to the run's `done` read from its stream.
 *
 * Each is the least of its kind: no op check (a completion resent after a reconnect would be told
 * twice), no start records, no cancellation, no fair shares or admission, no HTTP; the engine does
 * each of those besides. So the last rung's stories per CPU-second over plain BullMQ's is an upper
 * bound for any engine that keeps these three, whatever its design. Switchyard runs in the same
 * rounds for reference. Every key is under the flow's hash-tagged prefix, so a run's end is one
 * script over the run's and its batch's keys on a Cluster too (the engine's are in two slots).
 */
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { encodeArchive, type RunArchive } from '@switchyard/pipeline';
import { createRedisClient, scriptCommand, uniquePrefix } from '@switchyard/redis';
import { BASELINE_QUEUES, startBaseline, type BaselineGuarantees, type BaselineUnderTest } from './story-baseline.js';
import { benchPipelineMaking } from './pipeline-making.js';
import { measureCost, medianCost, type StoryCost } from './story-cost.js';
import { completionOf, median, round, say } from './story-stats.js';
import { startSwitchyard } from './story-switchyard.js';
import { serveByHand } from './story-api-by-hand.js';
import type { ToolProbe } from './instant-tools.js';

/** The rungs, each with everything of those before it. */
export const RUNGS = ['flow_control', 'run_record', 'stage_events', 'archive'] as const;
export type Rung = (typeof RUNGS)[number];
/** The rung with every guarantee, which the end-to-end part also runs behind an API. */
const LAST_RUNG = RUNGS[RUNGS.length - 1] as Rung;
const API_BY_HAND = `${LAST_RUNG}_behind_an_api`;

const RETENTION_MS = 3600_000;
/** Runs archived together once a batch has ended (the engine's compactor also takes them in pages). */
const ARCHIVES_AT_ONCE = 50;

/** The plain flow timed as the pipeline part times it: to its end read by a client (QueueEvents). */
const PLAIN_READ = 'plain_read_by_a_client';

/** The stream a hand-written run is told on (the last rungs' `done` event is its end). */
export const eventsKeyByHand = (prefix: string, runId: string) => `${prefix}:run:${runId}:events`;

/**
 * A run's end: its status and `done` event, out of the live index, and its batch's count (with the
 * batch's `done` once its last run has ended). KEYS: run, events, active runs[, batch, batch events].
 * ARGV: run id, time (ms), its result (the last stage's output).
 */
const END_SCRIPT = `
redis.call('HSET', KEYS[1], 'status', 'completed', 'updated_at', ARGV[2], 'result', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'type', 'done', 'data', '{"status":"completed"}')
redis.call('ZREM', KEYS[3], ARGV[1])
if #KEYS < 5 then return 0 end
local finished = redis.call('HINCRBY', KEYS[4], 'finished', 1)
if finished >= tonumber(redis.call('HGET', KEYS[4], 'total') or '0') then
  redis.call('XADD', KEYS[5], '*', 'type', 'done', 'data', cjson.encode({completed = finished}))
end
return finished
`;

/** The rung's guarantees, written by hand under `prefix` (hash-tagged, so one slot on a Cluster too). */
export function guaranteesByHand(rung: Rung, prefix: string) {
  /** Whether this rung keeps `guarantee` (each rung keeps those before it too). */
  const keeps = (guarantee: Rung) => RUNGS.indexOf(rung) >= RUNGS.indexOf(guarantee);
  const key = {
    run: (id: string) => `${prefix}:run:${id}`,
    events: (id: string) => eventsKeyByHand(prefix, id),
    outputs: (id: string) => `${prefix}:run:${id}:outputs`,
    archive: (id: string) => `${prefix}:run:${id}:archive`,
    active: `${prefix}:runs:active`,
    batch: (id: string) => `${prefix}:batch:${id}`,
    batchEvents: (id: string) => `${prefix}:batch:${id}:events`,
  };
  return (redis: Redis): BaselineGuarantees => {
    const toArchive: string[] = [];
    const endScript = scriptCommand<number>(redis, 'benchRunEnd', END_SCRIPT);
    const end = (keys: string[], ...args: string[]) => endScript(keys.length, ...keys, ...args);

    async function archive(id: string): Promise<void> {
      const [fields, entries] = await Promise.all([redis.hgetall(key.run(id)), redis.xrange(key.events(id), '-', '+')]);
      const events = entries.map(([eventId, pairs]) => ({ id: eventId, type: pairs[1] ?? 'message', data: pairs[3] ?? '{}' }));
      const value = encodeArchive({ fields, events } satisfies RunArchive);
      await Promise.all([redis.set(key.archive(id), value, 'PX', RETENTION_MS), redis.del(key.run(id), key.events(id), key.outputs(id))]);
    }

    return {
      async added(ids, batch) {
        if (!keeps('run_record')) return;
        const now = String(Date.now());
        const writes: Promise<unknown>[] = ids.flatMap((id) => [
          redis.hset(key.run(id), 'id', id, 'status', 'queued', 'created_at', now, 'batch_id', batch?.id ?? '', 'request', JSON.stringify({ topic: `baseline story ${id}` })),
          redis.zadd(key.active, now, id),
        ]);
        if (batch) writes.push(redis.hset(key.batch(batch.id), 'total', batch.total));
        await Promise.all(writes);
      },
      async stage(id, stage, output) {
        if (!keeps('stage_events')) return;
        // Sent together, answered in one round trip; not as an ioredis pipeline, whose making
        // copies every script BullMQ defined on the connection (see KeyedPipeline).
        const writes: Promise<unknown>[] = [redis.hset(key.outputs(id), stage, JSON.stringify(output)), redis.xadd(key.events(id), '*', 'type', 'stage', 'data', JSON.stringify({ stage, status: 'completed' }))];
        // The run is running from its first stage's record, told by that stage's event.
        if (stage === 'search') writes.push(redis.hset(key.run(id), 'status', 'running'));
        await Promise.all(writes);
      },
      async ended(id, batch, result) {
        if (!keeps('run_record')) return;
        const runKeys = [key.run(id), key.events(id), key.active];
        await end(batch ? [...runKeys, key.batch(batch), key.batchEvents(batch)] : runKeys, id, String(Date.now()), JSON.stringify(result));
        if (keeps('archive')) toArchive.push(id);
      },
      async settle() {
        for (const ids = toArchive.splice(0); ids.length > 0; ) await Promise.all(ids.splice(0, ARCHIVES_AT_ONCE).map(archive));
      },
    };
  };
}

export interface GuaranteesBenchOptions {
  redisUrl: string;
  /** Stories a measurement. */
  stories: number;
  /** Rounds: each measures every system once, in an order that turns each round. */
  rounds: number;
  /** Stories run one at a time through each hand-written flow, in turn, for the end-to-end time. */
  singleStories: number;
  concurrency: number;
}

type System = { name: string; runBatch(count: number): Promise<unknown>; close(): Promise<void> };
/** A system that runs one story at a time for the end-to-end figures. */
type Single = { name: string; runStory(id: string): Promise<void> };

const cpuOf = (cost: StoryCost) => cost.node_cpu_us + cost.redis_cpu_us;

export async function benchGuarantees(options: GuaranteesBenchOptions) {
  const prefixes = new Map<string, string>();
  const start = (guarantees?: Rung) => {
    const prefix = uniquePrefix(`bench-by-hand-${guarantees ?? 'plain'}`);
    prefixes.set(guarantees ?? 'plain', prefix);
    return startBaseline({ redisUrl: options.redisUrl, prefix, concurrency: options.concurrency, ...(guarantees ? { flowControl: true, guarantees: guaranteesByHand(guarantees, prefix) } : {}) });
  };
  const named = (name: string, system: BaselineUnderTest): System => ({ name, runBatch: (n) => system.runBatch(n), close: () => system.close() });
  const flows = new Map<string, BaselineUnderTest>([['plain', await start()]]);
  for (const rung of RUNGS) flows.set(rung, await start(rung));
  const systems: System[] = [...flows].map(([name, flow]) => named(name, flow));
  const api = await serveByHand(flows.get(LAST_RUNG) as BaselineUnderTest, { redisUrl: options.redisUrl, eventsKey: (id) => eventsKeyByHand(prefixes.get(LAST_RUNG) as string, id) });
  const polished = polishProbe();
  const switchyard = await startSwitchyard({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-by-hand-switchyard'), concurrency: options.concurrency, workers: true, probe: polished.probe });
  // A client of plain BullMQ learns that a story ended from its queue's events, as the pipeline part's does.
  const eventsConnection = createRedisClient(options.redisUrl);
  const plainEvents = new QueueEvents(BASELINE_QUEUES.polish, { connection: eventsConnection, prefix: prefixes.get('plain') as string });
  await plainEvents.waitUntilReady();
  const plain = flows.get('plain') as BaselineUnderTest;
  const singles: Single[] = [
    ...[...flows].map(([name, flow]) => ({ name, runStory: (id: string) => flow.runStory(id) })),
    {
      name: PLAIN_READ,
      async runStory(id) {
        const followed = completionOf(plainEvents, `${id}.polish`);
        await plain.addStory(id);
        await followed;
      },
    },
    { name: API_BY_HAND, runStory: (id) => api.runStory(`story ${id}`) },
    {
      name: 'switchyard',
      async runStory(id) {
        const { runId, status } = await switchyard.runStory(`story ${id}`, polished.next());
        if (status !== 'completed') throw new Error(`switchyard run ${runId} ended ${status}`);
      },
    },
  ];
  systems.push({
    name: 'switchyard',
    async runBatch(count) {
      const counts = await switchyard.runBatch(count);
      if (counts.completed !== count) throw new Error(`switchyard completed ${counts.completed ?? 0} of ${count} stories`);
    },
    close: () => switchyard.close(),
  });
  const counters = createRedisClient(options.redisUrl);
  const costs = new Map<string, StoryCost[]>(systems.map((s) => [s.name, []]));
  try {
    say(`guarantees by hand: warming up ${systems.length} systems with 50 stories each…`);
    for (const system of systems) await system.runBatch(50);
    for (let r = 0; r < options.rounds; r += 1) {
      say(`guarantees by hand, round ${r + 1}/${options.rounds}: ${options.stories} stories through each of ${systems.map((s) => s.name).join(', ')}…`);
      // Whichever goes later runs on a warmer process and a fuller Redis: the order turns each round.
      const order = systems.map((_, i) => systems[(i + r) % systems.length] as System);
      for (const system of order) {
        const { cost } = await measureCost(counters, options.stories, async () => {
          await system.runBatch(options.stories);
        });
        costs.get(system.name)?.push(cost);
      }
    }
    const endToEnd = await singleStories(singles, options.singleStories);
    const pipelineMaking = await benchPipelineMaking({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-pipeline-making'), rounds: 3 });
    return { ...report(costs, options), end_to_end: endToEnd, ioredis_pipeline_on_a_bullmq_connection: pipelineMaking };
  } finally {
    await counters.quit();
    await plainEvents.close();
    eventsConnection.disconnect();
    await api.close();
    for (const system of systems) await system.close();
  }
}

/** A tool probe whose `next()` resolves when the next polish tool call returns (one story at a time). */
function polishProbe(): { probe: ToolProbe; next(): Promise<void> } {
  let resolve: (() => void) | undefined;
  return {
    probe: { enter: () => undefined, exit: (stage) => void (stage === 'polish' && resolve?.()) },
    next: () => new Promise<void>((r) => (resolve = r)),
  };
}

/**
 * Stories one at a time, the systems taking turns. The hand-written flows: from adding the story's
 * first flow to its polish job's completion, seen by the workers' own event (no request, no
 * client's read). The last rung behind an API, and Switchyard: from the request sent to the run's
 * `done` read from its stream, after the polish tool returned. So `switchyard_vs_api` is what the
 * engine adds on the same path beyond the least of the same guarantees and an API.
 */
async function singleStories(singles: readonly Single[], count: number) {
  say(`guarantees by hand: ${count} stories one at a time through each of ${singles.map((s) => s.name).join(', ')}…`);
  const ms = new Map<string, number[]>(singles.map((s) => [s.name, []]));
  for (let i = 0; i < count + 20; i += 1) {
    for (const single of singles) {
      const started = performance.now();
      await single.runStory(`single-${i}`);
      if (i >= 20) ms.get(single.name)?.push(performance.now() - started);
    }
  }
  const p50 = (name: string) => median(ms.get(name) ?? []);
  return {
    measured_as: `p50 of ${count} stories one at a time (after 20 to warm up), the systems taking turns: a hand-written flow from adding its first flow to its polish job's completion seen by its worker; ${PLAIN_READ} to the polish job's completed event read with QueueEvents (the pipeline part's plain BullMQ); ${API_BY_HAND} and switchyard from the request sent to the run's done event read from its stream`,
    systems: Object.fromEntries([...ms].map(([name, values]) => [name, { p50_ms: round(median(values), 2), vs_plain: round(median(values) / p50('plain'), 2), vs_plain_read_by_a_client: round(median(values) / p50(PLAIN_READ), 2) }])),
    switchyard_vs_api: round(p50('switchyard') / p50(API_BY_HAND), 2),
  };
}

function report(costs: Map<string, StoryCost[]>, options: GuaranteesBenchOptions) {
  const plain = costs.get('plain') ?? [];
  const systems = Object.fromEntries(
    [...costs].map(([name, rounds]) => {
      // Per round against that round's plain flow: the load that drifts between rounds touches both.
      const ratios = rounds.map((cost, i) => round(cpuOf(plain[i] as StoryCost) / cpuOf(cost)));
      const cost = medianCost(rounds);
      return [name, { ...cost, cpu_us_per_story: cpuOf(cost), stories_per_cpu_s_vs_plain: median(ratios), round_ratios: ratios }];
    }),
  );
  return {
    measured_as: `${options.rounds} rounds of ${options.stories} stories through each system (the order turning each round); CPU of this process and of Redis per story, medians; stories per CPU-second over plain BullMQ's, per round and the median. Each rung adds its guarantee to those before it, written by hand at the least (scripts/bench/story-guarantees.ts); switchyard is POST /v1/batches to the batch's done, runs compacted`,
    rungs: ['plain', ...RUNGS, 'switchyard'],
    systems,
  };
}
