/**
 * What durability costs: the same stories through Switchyard with Redis' AOF fsynced once a second
 * (`appendfsync everysec`, the default) and on every write (`always`), alternating in rounds so
 * that load from elsewhere touches both alike. Only on a Redis that lets us change its
 * configuration (the bench's own, or one whose CONFIG SET is allowed); the setting is put back.
 */
import type { Redis } from 'ioredis';
import { createRedisClient, uniquePrefix } from '@switchyard/redis';
import { measureCost, medianCost, type StoryCost } from './story-cost.js';
import { median, round, say } from './story-stats.js';
import { startSwitchyard } from './story-switchyard.js';

export interface DurabilityBenchOptions {
  redisUrl: string;
  /** Stories per round and setting. */
  stories: number;
  /** Rounds (each: everysec, then always). */
  rounds: number;
  concurrency: number;
}

type Fsync = 'everysec' | 'always';
const SETTINGS: readonly Fsync[] = ['everysec', 'always'];

async function aofFsyncSetting(redis: Redis): Promise<{ aof: boolean; fsync: string }> {
  const [, aof] = (await redis.config('GET', 'appendonly')) as [string, string];
  const [, fsync] = (await redis.config('GET', 'appendfsync')) as [string, string];
  return { aof: aof === 'yes', fsync };
}

export async function benchDurability(options: DurabilityBenchOptions) {
  const admin = createRedisClient(options.redisUrl);
  let before: { aof: boolean; fsync: string };
  try {
    before = await aofFsyncSetting(admin);
  } catch (error) {
    await admin.quit();
    return { skipped: `this Redis does not let the bench read or change its configuration: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!before.aof) {
    await admin.quit();
    return { skipped: 'this Redis runs without AOF (appendonly no): there is no fsync policy to compare' };
  }
  const switchyard = await startSwitchyard({ redisUrl: options.redisUrl, prefix: uniquePrefix('bench-durability'), concurrency: options.concurrency, workers: true });
  const samples: Record<Fsync, { rates: number[]; costs: StoryCost[] }> = { everysec: { rates: [], costs: [] }, always: { rates: [], costs: [] } };
  try {
    await switchyard.runBatch(50); // warm-up
    for (let r = 1; r <= options.rounds; r += 1) {
      for (const setting of SETTINGS) {
        say(`durability round ${r}/${options.rounds}: ${options.stories} stories with appendfsync ${setting}…`);
        await admin.config('SET', 'appendfsync', setting);
        const measured = await measureCost(admin, options.stories, async () => {
          const counts = await switchyard.runBatch(options.stories);
          if (counts.completed !== options.stories) throw new Error(`completed ${counts.completed ?? 0} of ${options.stories} stories: ${JSON.stringify(counts)}`);
        });
        samples[setting].rates.push(round(options.stories / (measured.ms / 1000), 1));
        samples[setting].costs.push(measured.cost);
      }
    }
  } finally {
    await admin.config('SET', 'appendfsync', before.fsync).catch(() => undefined);
    await switchyard.close();
    await admin.quit();
  }
  const summary = (setting: Fsync) => ({ stories_per_s: median(samples[setting].rates), rounds_stories_per_s: samples[setting].rates, cost_per_story: medianCost(samples[setting].costs) });
  const everysec = summary('everysec');
  const always = summary('always');
  return {
    stories: options.stories,
    rounds: options.rounds,
    measured_as: 'Switchyard alone, POST /v1/batches → batch done, the AOF policy switched with CONFIG SET between rounds; medians',
    everysec,
    always,
    always_vs_everysec_throughput: round(always.stories_per_s / everysec.stories_per_s),
  };
}
