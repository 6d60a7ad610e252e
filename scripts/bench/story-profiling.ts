/**
 * Where a zero-latency story's cost goes (issue #36, item 4): one batch through the bench's
 * in-process stack (Switchyard, or the plain-BullMQ baseline), with this process under the sampling
 * profiler and Redis' slow log set to log every command meanwhile. Reports self time per story by
 * area and by function, and Redis' time per story by script (named from their SHAs) and by
 * command. The slow log's own cost inflates Redis' times: read them as shares. Redis' settings are
 * put back afterwards; run it on a Redis of its own, not one other work is measured on.
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient, uniquePrefix } from '@switchyard/redis';
import { readForCompaction } from '../../packages/pipeline/src/store/compaction-scripts.js';
import { runScripts } from '../../packages/pipeline/src/store/stage-scripts.js';
import { profiled, summarizeProfile } from './agent-profile.js';
import { redisCpuSeconds } from './redis-info.js';
import { startBaseline } from './story-baseline.js';
import { startSwitchyard } from './story-switchyard.js';

export type ProfiledSystem = 'switchyard' | 'baseline';

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * @param options.stories stories in the profiled batch (after a warm-up of up to 200)
 * @param options.file where the `.cpuprofile` is written
 */
export async function profileStories(options: { redisUrl: string; system: ProfiledSystem; stories: number; file: string }) {
  const { stories } = options;
  const redis = createRedisClient(options.redisUrl);
  const prefix = uniquePrefix('story-profile');
  const underTest = options.system === 'baseline' ? await startBaseline({ redisUrl: options.redisUrl, prefix, concurrency: 8 }) : await startSwitchyard({ redisUrl: options.redisUrl, prefix, concurrency: 8, workers: true });
  const saved = (await redis.config('GET', 'slowlog-*')) as string[];
  try {
    await underTest.runBatch(Math.min(200, stories));
    await redis.config('SET', 'slowlog-max-len', String(Math.max(100_000, stories * 600)));
    await redis.slowlog('RESET');
    await redis.config('SET', 'slowlog-log-slower-than', '0');
    const cpuBefore = redisCpuSeconds(await redis.info('cpu'));
    const started = process.cpuUsage();
    const { profile } = await profiled(options.file, async () => {
      await underTest.runBatch(stories);
    });
    const used = process.cpuUsage(started);
    await redis.config('SET', 'slowlog-log-slower-than', '-1');
    const redisUs = (redisCpuSeconds(await redis.info('cpu')) - cpuBefore) * 1e6;
    const summary = summarizeProfile(profile, stories);
    return {
      system: options.system,
      stories,
      node_cpu_us_per_story: Math.round((used.user + used.system) / stories),
      redis_cpu_us_per_story: Math.round(redisUs / stories),
      redis: await slowLogTimes(redis, options.redisUrl, stories),
      node: { busy_us_per_story: summary.busy_us_per_call, by_area: summary.by_area, top_functions: summary.top_functions },
    };
  } finally {
    for (let i = 0; i + 1 < saved.length; i += 2) await redis.config('SET', saved[i] as string, saved[i + 1] as string);
    await redis.slowlog('RESET');
    await underTest.close();
    await redis.quit();
  }
}

/** Script names by SHA: BullMQ's (a queue loads them) and the run store's. */
async function scriptNames(redisUrl: string): Promise<Map<string, string>> {
  const client = createRedisClient(redisUrl);
  const queue = new Queue('script-names', { connection: client, prefix: uniquePrefix('script-names') });
  try {
    await queue.waitUntilReady();
    runScripts(client);
    // Defines the compaction's read script on the client; no key, nothing read.
    await readForCompaction(client, []).catch(() => undefined);
    const set = (client as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet;
    return new Map(Object.entries(set).map(([name, script]) => [script.sha, name]));
  } finally {
    await queue.close();
    await client.quit();
  }
}

/** Plain commands by the shape of their key (ids and numbers taken out). */
const keyShape = (key: unknown) => String(key).replace(/run_[0-9a-f]+/g, 'run_<id>').replace(/\d+/g, 'N').slice(0, 80);

/** Redis' time per story by script and by command, from a slow log that logged every command. */
async function slowLogTimes(redis: Redis, redisUrl: string, stories: number) {
  const names = await scriptNames(redisUrl);
  const entries = (await redis.slowlog('GET', -1)) as [number, number, number, string[]][];
  const totals = new Map<string, { calls: number; us: number }>();
  for (const [, , us, args] of entries) {
    const command = String(args[0]).toLowerCase();
    let name = `${command} ${keyShape(args[1])}`;
    if (command === 'evalsha') name = `script ${names.get(String(args[1])) ?? String(args[1]).slice(0, 8)}`;
    else if (command === 'eval') name = `eval ${createHash('sha1').update(String(args[1])).digest('hex').slice(0, 8)}`;
    const total = totals.get(name) ?? { calls: 0, us: 0 };
    total.calls += 1;
    total.us += us;
    totals.set(name, total);
  }
  const ranked = [...totals].sort((a, b) => b[1].us - a[1].us).slice(0, 40);
  return { logged: entries.length, by_name: ranked.map(([name, t]) => ({ name, calls_per_story: Math.round((t.calls / stories) * 100) / 100, us_per_story: round1(t.us / stories) })) };
}
