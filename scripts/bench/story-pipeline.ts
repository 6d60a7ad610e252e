/**
 * The story pipeline's benchmark: (a) stories per second through the real orchestrator and
 * workers beside a plain-BullMQ baseline of the same shape, same N and concurrency; (b) stage-hop
 * latency, stories run one at a time on an idle system; (c) seconds to accept a 10,000-item batch;
 * (d) a single story's acceptance, one at a time, and its cost per request.
 * Every measurement runs under a prefix of its own, whose keys are deleted afterwards.
 */
import { QueueEvents } from 'bullmq';
import { createRedisClient, isClusterUrl, uniquePrefix } from '@switchyard/redis';
import { startDelayProxy } from './delay-proxy.js';
import { BASELINE_QUEUES, startBaseline } from './story-baseline.js';
import { measureCost, medianCost, type StoryCost } from './story-cost.js';
import { completionOf, HopRecorder, JobHopReader, median, medianInterval, round, say, summarize } from './story-stats.js';
import { startHandbuilt } from './story-handbuilt.js';
import { startSwitchyard } from './story-switchyard.js';

export interface StoryBenchOptions {
  redisUrl: string;
  /** N: stories per throughput measurement. */
  stories: number;
  /** Stories run one at a time for stage hops. */
  hopStories: number;
  /** Items in the batch whose acceptance is timed. */
  batchItems: number;
  /** Timed acceptances (the median is reported). */
  acceptRepeats: number;
  /** Throughput rounds (each: baseline, then Switchyard). */
  rounds: number;
  /** Workers' concurrency per stage queue, the same for both systems. */
  concurrency: number;
  /** Engine/hand-built pairs measured per round (default 3). */
  enginePairs: number;
  /** Ms the delay proxy holds each chunk each way when single stories are accepted through it (default 2). */
  acceptDelayMs: number;
}

/**
 * `cpu_ratio_min`: Switchyard's stories per CPU-second (process and Redis) over plain BullMQ's,
 * which replaced the wall-clock throughput target (0.8×) this bench first had: on a shared
 * 2-core machine wall-clock ratios swing from run to run, CPU per story less so. 0.75 and the
 * end-to-end ratio are issue #36's goals for the engine's overhead.
 */
export const TARGETS = { cpu_ratio_min: 0.75, stage_hop_p50_ms_max: 2, end_to_end_p50_ratio_max: 1.5, batch_accept_s_max: 2 } as const;

const WARM_UP_STORIES = 50;
const rate = (stories: number, ms: number) => round(stories / (ms / 1000), 1);

/**
 * (a) The same N stories through each system, in rounds of baseline then Switchyard back to back
 * (both started, each idle while the other runs), so that load from elsewhere on the machine
 * touches both alike; the ratio is the median of the rounds' ratios.
 */
async function measureThroughput(options: StoryBenchOptions) {
  const baseline = await startBaseline({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-baseline'), concurrency: options.concurrency });
  const switchyard = await startSwitchyard({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-switchyard'), concurrency: options.concurrency, workers: true });
  const handbuilt = await startHandbuilt({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-handbuilt'), concurrency: options.concurrency });
  const counters = createRedisClient(options.redisUrl);
  const rounds: { baseline_stories_per_s: number; switchyard_stories_per_s: number; ratio: number }[] = [];
  const costs: { baseline: StoryCost[]; switchyard: StoryCost[]; handbuilt: StoryCost[]; engine: StoryCost[] } = { baseline: [], switchyard: [], handbuilt: [], engine: [] };
  try {
    say(`throughput: warming up with ${WARM_UP_STORIES} stories each…`);
    await baseline.runBatch(WARM_UP_STORIES);
    await handbuilt.runBatch(WARM_UP_STORIES);
    await switchyard.runBatch(WARM_UP_STORIES);
    for (let r = 1; r <= options.rounds; r += 1) {
      say(`throughput round ${r}/${options.rounds}: ${options.stories} stories through plain BullMQ, then through Switchyard (HTTP batch, orchestrator, workers)…`);
      const plain = await measureCost(counters, options.stories, () => baseline.runBatch(options.stories));
      const measureHandbuilt = async () => {
        const before = await measureCost(counters, options.stories, async () => {
          const done = await handbuilt.runBatch(options.stories);
          if (done.completed !== options.stories) throw new Error(`the hand-built flow completed ${done.completed ?? 0} of ${options.stories} stories`);
        });
        costs.handbuilt.push(before.cost);
      };
      const measureEngine = async () => {
        const engine = await measureCost(counters, options.stories, async () => {
          const done = await switchyard.runBatchDirect(options.stories);
          if (done.completed !== options.stories) throw new Error(`the engine completed ${done.completed ?? 0} of ${options.stories} stories started directly`);
        });
        costs.engine.push(engine.cost);
      };
      // Whichever goes second runs on a warmer process (JIT, pools): the order alternates. A pair
      // is cheap next to the round, and the pairs' ratios spread widely on a shared machine: several a round.
      for (let pair = 0; pair < options.enginePairs; pair += 1) {
        for (const measure of (r + pair) % 2 === 1 ? [measureHandbuilt, measureEngine] : [measureEngine, measureHandbuilt]) await measure();
      }
      let counts: Record<string, number> = {};
      const ours = await measureCost(counters, options.stories, async () => {
        counts = await switchyard.runBatch(options.stories);
      });
      if (counts.completed !== options.stories) throw new Error(`switchyard completed ${counts.completed ?? 0} of ${options.stories} stories: ${JSON.stringify(counts)}`);
      const baselineRate = rate(options.stories, plain.ms);
      const switchyardRate = rate(options.stories, ours.ms);
      rounds.push({ baseline_stories_per_s: baselineRate, switchyard_stories_per_s: switchyardRate, ratio: round(switchyardRate / baselineRate) });
      costs.baseline.push(plain.cost);
      costs.switchyard.push(ours.cost);
    }
  } finally {
    await counters.quit();
    await handbuilt.close();
    await switchyard.close();
    await baseline.close();
  }
  const ratio = median(rounds.map((r) => r.ratio));
  return {
    stories: options.stories,
    concurrency_per_queue: options.concurrency,
    switchyard_stories_per_s: median(rounds.map((r) => r.switchyard_stories_per_s)),
    baseline_stories_per_s: median(rounds.map((r) => r.baseline_stories_per_s)),
    ratio,
    rounds,
    cost_per_story: {
      measured_as: 'medians over the rounds: CPU of this process (each system alone in it while measured), CPU of Redis, and commands Redis ran (a script counts with the commands it calls)',
      baseline: medianCost(costs.baseline),
      switchyard: medianCost(costs.switchyard),
      handbuilt: medianCost(costs.handbuilt),
    },
    cpu_ratio: cpuRatio(costs.switchyard, costs.baseline),
    engine_vs_handbuilt: engineVersusHandbuilt(costs.engine, costs.handbuilt),
    measured_as: `median of ${options.rounds} rounds; Switchyard: POST /v1/batches → batch done event → its runs compacted; baseline: FlowProducer.addBulk 250 at a time → last polish job completed; ratio and rounds are wall-clock, for reference (the target is cpu_ratio's)`,
  };
}

const cpuOf = (c: StoryCost) => c.node_cpu_us + c.redis_cpu_us;

/** Stories per CPU-second of each system and their ratio, per round (the two ran in it back to back) and as the median. */
export function cpuRatio(switchyardRounds: readonly StoryCost[], baselineRounds: readonly StoryCost[]) {
  const perCpuSecond = (rounds: readonly StoryCost[]) => round(1e6 / median(rounds.map(cpuOf)), 1);
  const roundRatios = switchyardRounds.map((s, i) => round(cpuOf(baselineRounds[i] as StoryCost) / cpuOf(s)));
  const ratio = median(roundRatios);
  return {
    measured_as: 'stories per CPU-second, CPU being this process (each system alone in it while measured) plus Redis: Switchyard over plain BullMQ per round, and the median of the rounds',
    switchyard_stories_per_cpu_s: perCpuSecond(switchyardRounds),
    baseline_stories_per_cpu_s: perCpuSecond(baselineRounds),
    ratio,
    round_ratios: roundRatios,
    target_min: TARGETS.cpu_ratio_min,
    met: ratio >= TARGETS.cpu_ratio_min,
  };
}

/** The median ratio's 95 % interval (medianInterval), and what it says of the engine's cost. */
function ratioInterval(ratios: readonly number[]) {
  const interval = medianInterval(ratios);
  if (!interval) return { verdict: 'too few pairs for an interval' };
  const verdict = interval.high <= 1 ? 'no dearer' : interval.low > 1 ? 'dearer' : 'equal within the measurement';
  return { ...interval, verdict };
}

/**
 * The pipeline engine running the story definition against the hand-built flows it replaced, in
 * the same rounds: CPU per story of this process and of Redis, and the ratio (≤ 1: no dearer).
 */
function engineVersusHandbuilt(engineRounds: readonly StoryCost[], handbuiltRounds: readonly StoryCost[]) {
  const engine = medianCost(engineRounds);
  const handbuilt = medianCost(handbuiltRounds);
  // Each pair ran back to back, so its ratio is spared the load that drifts between pairs.
  const pairRatios = engineRounds.map((e, i) => round(cpuOf(e) / cpuOf(handbuiltRounds[i] as StoryCost)));
  return {
    measured_as: 'per pair (several a round), the two back to back (which goes first alternates), both started alike (runs written, first jobs added 250 at a time, no API or dispatcher) and their ended runs compacted inside the measurement: the story definition run by the engine, and the hand-built flow it replaced (scripts/bench/story-handbuilt.ts: two BullMQ flows over the same run-store scripts); cpu_ratio is the median of the pairs\' ratios, the rest medians over the pairs',
    engine_cpu_us_per_story: cpuOf(engine),
    handbuilt_cpu_us_per_story: cpuOf(handbuilt),
    cpu_ratio: median(pairRatios),
    // How far the pairs' spread leaves the median uncertain; ≤ 1 at its high end: no dearer.
    cpu_ratio_interval: ratioInterval(pairRatios),
    pair_cpu_ratios: pairRatios,
    node_cpu_ratio: round(engine.node_cpu_us / handbuilt.node_cpu_us),
    redis_cpu_ratio: round(engine.redis_cpu_us / handbuilt.redis_cpu_us),
    redis_commands: { engine: engine.redis_commands, handbuilt: handbuilt.redis_commands },
  };
}

/**
 * (b) One story at a time, alternating between the systems: hops at the tool boundary
 * (performance.now in the in-process tools) and from BullMQ's job timestamps.
 */
async function measureHops(options: StoryBenchOptions) {
  const warmUp = 20;
  say(`stage hops: ${options.hopStories} stories one at a time through each system, alternating…`);
  const prefix = uniquePrefix('bench-hops');
  const baselinePrefix = uniquePrefix('bench-hops-baseline');
  const recorder = new HopRecorder();
  const baselineRecorder = new HopRecorder();
  const switchyard = await startSwitchyard({ redisUrl: options.redisUrl, prefix, concurrency: options.concurrency, workers: true, probe: recorder.probe });
  const baseline = await startBaseline({ redisUrl: options.redisUrl, prefix: baselinePrefix, concurrency: options.concurrency, probe: baselineRecorder.probe });
  const jobHops = new JobHopReader({ workers: switchyard.workers });
  const baselineJobHops = new JobHopReader({ workers: baseline.workers });
  // A client of plain BullMQ learns that a story ended as its queue's events say so (QueueEvents, a blocking read of the queue's stream).
  const eventsConnection = createRedisClient(options.redisUrl);
  const baselineEvents = new QueueEvents(BASELINE_QUEUES.polish, { connection: eventsConnection, prefix: baselinePrefix });
  await baselineEvents.waitUntilReady();
  const storyMs: number[] = [];
  const baselineStoryMs: number[] = [];
  try {
    for (let i = 0; i < warmUp + options.hopStories; i += 1) {
      const measured = i >= warmUp;
      const polished = recorder.startStory();
      const started = performance.now();
      const { runId, status } = await switchyard.runStory(`hop story ${i}`, polished);
      const storyEnded = performance.now();
      if (status !== 'completed') throw new Error(`run ${runId} ended ${status}`);
      if (measured) {
        storyMs.push(storyEnded - started);
        recorder.endStory();
        recorder.addEdges(started, storyEnded);
        await jobHops.addStory(runId);
      }
      const baselinePolished = baselineRecorder.startStory();
      const baselineStarted = performance.now();
      const followed = completionOf(baselineEvents, `hop${i}.polish`);
      await baseline.runStory(`hop${i}`);
      await followed;
      const baselineEnded = performance.now();
      await baselinePolished;
      if (measured) {
        baselineStoryMs.push(baselineEnded - baselineStarted);
        baselineRecorder.addEdges(baselineStarted, baselineEnded);
        baselineRecorder.endStory();
        await baselineJobHops.addStory(`hop${i}`);
      }
    }
  } finally {
    await jobHops.close();
    await baselineJobHops.close();
    await baselineEvents.close();
    eventsConnection.disconnect();
    await switchyard.close();
    await baseline.close();
  }

  const tool = recorder.summary();
  return {
    stories: options.hopStories,
    hops_per_story: 6,
    measured_as: 'a stage\'s tool call returning → the next stage\'s tool call starting (performance.now in the in-process tools): search→outline, outline→each of 4 writers, last writer→polish',
    switchyard: tool,
    baseline: baselineRecorder.summary(),
    bullmq_job_timestamps: {
      measured_as: 'parent processedOn − child finishedOn (search→outline, last writer→polish); writer processedOn − its creation; whole ms',
      switchyard: jobHops.summary(),
      baseline: baselineJobHops.summary(),
    },
    target_p50_ms_max: TARGETS.stage_hop_p50_ms_max,
    met: tool.p50_ms <= TARGETS.stage_hop_p50_ms_max,
    end_to_end: { ...endToEnd(storyMs, baselineStoryMs), p50_ends_ms: { switchyard: edgesOf(recorder), baseline: edgesOf(baselineRecorder) } },
  };
}

/** Where a story's whole time goes at its ends (p50): request → first tool call, last tool call → the client told. */
const edgesOf = (recorder: HopRecorder) => ({ request_to_search: summarize(recorder.edges.start).p50_ms, polish_to_client: summarize(recorder.edges.end).p50_ms });

/**
 * A story's whole time, one at a time: Switchyard from `POST /v1/stories` sent to its run's `done`
 * event read from the run's stream (what a client following it sees), plain BullMQ from its flow
 * added to its last job's `completed` event read from the queue's events (QueueEvents, as
 * `job.waitUntilFinished` waits). The goal of issue #36: Switchyard's p50 at most 1.5× plain BullMQ's.
 */
function endToEnd(switchyardMs: readonly number[], baselineMs: readonly number[]) {
  const ratio = round(median(switchyardMs) / median(baselineMs));
  return {
    measured_as: 'one story at a time; Switchyard: POST /v1/stories sent → the run\'s done event read from its stream; plain BullMQ: flow added → its polish job\'s completed event read with QueueEvents',
    switchyard: summarize(switchyardMs),
    baseline: summarize(baselineMs),
    p50_ratio: ratio,
    target_p50_ratio_max: TARGETS.end_to_end_p50_ratio_max,
    met: ratio <= TARGETS.end_to_end_p50_ratio_max,
  };
}

/** (c) POST /v1/batches with `batchItems` items until the 202, the orchestrator alone (the dispatch happens later, in a worker). */
async function measureAccept(options: StoryBenchOptions) {
  say(`batch acceptance: ${options.acceptRepeats} × ${options.batchItems} items…`);
  const prefix = uniquePrefix('bench-accept');
  const api = await startSwitchyard({ redisUrl: options.redisUrl, prefix, concurrency: options.concurrency, workers: false });
  const samples: number[] = [];
  try {
    await api.acceptBatch(100); // warm-up
    for (let i = 0; i < options.acceptRepeats; i += 1) samples.push(await api.acceptBatch(options.batchItems));
  } finally {
    await api.close();
  }
  const seconds = median(samples);
  return {
    items: options.batchItems,
    seconds: round(seconds),
    samples_s: samples.map((s) => round(s)),
    measured_as: `median of ${options.acceptRepeats}: request sent → 202 received, orchestrator alone`,
    target_s_max: TARGETS.batch_accept_s_max,
    met: seconds <= TARGETS.batch_accept_s_max,
  };
}

/**
 * (d) Single stories, one at a time: POST /v1/stories until the 202, the orchestrator alone (no
 * worker takes their jobs), BENCH_HOP_STORIES of them: a start's own round trips, with its cost
 * per request (CPU of this process, orchestrator and client, and of Redis; Redis' commands).
 */
async function measureStoryAccept(options: StoryBenchOptions) {
  say(`single story acceptance: ${options.hopStories} stories one at a time…`);
  const api = await startSwitchyard({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-accept-one'), concurrency: options.concurrency, workers: false });
  const counters = createRedisClient(options.redisUrl);
  const samples: number[] = [];
  try {
    for (let i = 0; i < 20; i += 1) await api.acceptStory(`warm-up story ${i}`);
    const { cost } = await measureCost(counters, options.hopStories, async () => {
      for (let i = 0; i < options.hopStories; i += 1) samples.push(await api.acceptStory(`accepted story ${i}`));
    });
    return { stories: options.hopStories, measured_as: 'POST /v1/stories sent → 202 received, one at a time, orchestrator alone; cost per request: CPU of this process (orchestrator and client), of Redis, and the commands Redis ran', ...summarize(samples), cost_per_request: cost, through_delay: await measureStoryRoundTrips(options) };
  } finally {
    counters.disconnect();
    await api.close();
  }
}

/**
 * The same through a proxy that holds every chunk `acceptDelayMs` each way (delay-proxy.ts): the
 * chunks sent to Redis per request are its round trips, and its time is about as many times twice
 * the delay, however loaded the machine. A single Redis on 127.0.0.1 only.
 */
async function measureStoryRoundTrips(options: StoryBenchOptions) {
  if (isClusterUrl(options.redisUrl)) return null;
  const stories = Math.min(options.hopStories, 50);
  const proxy = await startDelayProxy({ redisUrl: options.redisUrl, delayMs: options.acceptDelayMs });
  const api = await startSwitchyard({ redisUrl: proxy.url, prefix: uniquePrefix('bench-accept-delay'), concurrency: options.concurrency, workers: false });
  const samples: number[] = [];
  try {
    for (let i = 0; i < 10; i += 1) await api.acceptStory(`warm-up story ${i}`);
    const before = proxy.sent();
    for (let i = 0; i < stories; i += 1) samples.push(await api.acceptStory(`delayed story ${i}`));
    return { stories, delay_ms_each_way: options.acceptDelayMs, writes_to_redis_per_request: round((proxy.sent() - before) / stories), ...summarize(samples) };
  } finally {
    await api.close();
    proxy.close();
  }
}

export async function benchStoryPipeline(options: StoryBenchOptions) {
  const throughput = await measureThroughput(options);
  const stageHop = await measureHops(options);
  const batchAccept = await measureAccept(options);
  const storyAccept = await measureStoryAccept(options);
  return { throughput, stage_hop: stageHop, batch_accept: batchAccept, story_accept: storyAccept, all_targets_met: throughput.cpu_ratio.met && stageHop.met && stageHop.end_to_end.met && batchAccept.met };
}
