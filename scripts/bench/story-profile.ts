/**
 * Where a zero-latency story's cost goes in Switchyard (issue #36, item 4): one batch through the
 * bench's in-process stack, with this process under the sampling profiler and Redis' command
 * statistics reset before it. Prints self time per story by area and by function, and Redis'
 * time per story by command (a script's own commands are counted under the script too).
 *
 *   npx tsx scripts/bench/story-profile.ts switchyard|baseline [stories=1000] [profile.cpuprofile]
 */
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { runScripts } from '../../packages/pipeline/src/store/stage-scripts.js';
import { readForCompaction } from '../../packages/pipeline/src/store/compaction-scripts.js';
import { REPO_ROOT, createRedisClient, resolveRedis, uniquePrefix } from '@switchyard/redis';
import { profiled, summarizeProfile } from './agent-profile.js';
import { redisCpuSeconds } from './redis-info.js';
import { startBaseline } from './story-baseline.js';
import { startSwitchyard } from './story-switchyard.js';

const system = process.argv[2] === 'baseline' ? 'baseline' : 'switchyard';
const stories = Number(process.argv[3] ?? 1000);
const file = process.argv[4] ?? `/tmp/story-${system}.cpuprofile`;
const redis = await resolveRedis({ url: process.env.REDIS_URL, dataDir: `${REPO_ROOT}.data/redis-profile` });
const info = createRedisClient(redis.url);
const underTest = system === 'baseline' ? await startBaseline({ redisUrl: redis.url, prefix: uniquePrefix('prof'), concurrency: 8 }) : await startSwitchyard({ redisUrl: redis.url, prefix: uniquePrefix('prof'), concurrency: 8, workers: true });
try {
  await underTest.runBatch(200);
  await info.config('SET', 'slowlog-log-slower-than', '-1');
  await info.config('RESETSTAT');
  await info.config('SET', 'slowlog-max-len', '1000000');
  await info.slowlog('RESET');
  await info.config('SET', 'slowlog-log-slower-than', '0');
  const cpuBefore = redisCpuSeconds(await info.info('cpu'));
  const started = process.cpuUsage();
  const { profile } = await profiled(file, async () => { await underTest.runBatch(stories); });
  const used = process.cpuUsage(started);
  const redisUs = (redisCpuSeconds(await info.info('cpu')) - cpuBefore) * 1e6;
  await info.config('SET', 'slowlog-log-slower-than', '-1');
  const scripts = await scriptTimes(info, redis.url, stories);
  const stats = await info.info('commandstats');
  const commands = [...stats.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)]
    .map(([, name, calls, usec]) => ({ name, calls_per_story: Number(calls) / stories, us_per_story: Math.round((Number(usec) / stories) * 10) / 10 }))
    .sort((a, b) => b.us_per_story - a.us_per_story);
  const summary = summarizeProfile(profile, stories);
  console.log(JSON.stringify({ system, stories, node_cpu_us_per_story: Math.round((used.user + used.system) / stories), redis_cpu_us_per_story: Math.round(redisUs / stories), redis_commands: commands.slice(0, 25), scripts, node: { busy: summary.busy_us_per_call, by_area: summary.by_area, top_functions: summary.top_functions } }, null, 1));
} finally {
  await underTest.close();
  await info.quit();
  await redis.stop();
}

/** Names of the scripts by SHA: BullMQ's (loaded by a queue) and the run store's. */
async function scriptNames(url: string): Promise<Map<string, string>> {
  const client = createRedisClient(url);
  const queue = new Queue('names', { connection: client, prefix: 'names' });
  await queue.waitUntilReady();
  runScripts(client);
  await readForCompaction(client, []).catch(() => undefined);
  const set = (client as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet;
  const names = new Map(Object.entries(set).map(([name, script]) => [script.sha, name]));
  await queue.close();
  await client.quit();
  return names;
}

/** Redis time per story by script and by command, from a slow log that logged every command. */
async function scriptTimes(redis: Redis, url: string, stories: number) {
  const names = await scriptNames(url);
  const entries = (await redis.slowlog('GET', -1)) as [number, number, number, Buffer[] | string[]][];
  const totals = new Map<string, { calls: number; us: number }>();
  for (const [, , us, args] of entries) {
    const command = String(args[0]).toLowerCase();
    // Plain commands by the shape of their key (ids taken out) and, for hash reads, their fields.
    const shape = (text: unknown) => String(text).replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/g, '<id>').replace(/\d+/g, 'N').slice(0, 80);
    let name = `${command} ${shape(args[1])}${command.startsWith('h') && args.length > 2 ? ` ${args.slice(2, 6).map(shape).join(',')}` : ''}`;
    if (command === 'evalsha') name = `script ${names.get(String(args[1])) ?? String(args[1]).slice(0, 8)}`;
    else if (command === 'eval') name = `eval ${createHash('sha1').update(String(args[1])).digest('hex').slice(0, 8)}`;
    const total = totals.get(name) ?? { calls: 0, us: 0 };
    total.calls += 1;
    total.us += us;
    totals.set(name, total);
  }
  return { logged: entries.length, by_name: [...totals].sort((a, b) => b[1].us - a[1].us).slice(0, 45).map(([name, t]) => ({ name, calls_per_story: Math.round((t.calls / stories) * 100) / 100, us_per_story: Math.round((t.us / stories) * 10) / 10 })) };
}
