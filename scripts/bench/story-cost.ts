/**
 * What a story costs, beside how fast stories go: CPU of this process (both systems run in it,
 * one at a time) and of Redis, and the commands Redis ran, per story. On a 2-core machine the
 * process and Redis share the cores, so the throughput ratio follows their sum.
 */
import type { Redis } from 'ioredis';
import { median } from './story-stats.js';

export interface StoryCost {
  node_cpu_us: number;
  redis_cpu_us: number;
  redis_commands: number;
}

interface RedisCounters {
  cpuUs: number;
  commands: number;
}

async function readRedisCounters(redis: Redis): Promise<RedisCounters> {
  const [cpu, stats] = await Promise.all([redis.info('cpu'), redis.info('commandstats')]);
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  let commands = 0;
  for (const match of stats.matchAll(/cmdstat_[^:]+:calls=(\d+)/g)) commands += Number(match[1]);
  return { cpuUs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6, commands };
}

/** Runs `work` for `stories` stories and returns its duration with the cost per story. */
export async function measureCost(redis: Redis, stories: number, work: () => Promise<void>): Promise<{ ms: number; cost: StoryCost }> {
  const redisBefore = await readRedisCounters(redis);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const redisAfter = await readRedisCounters(redis);
  const perStory = (n: number) => Math.round(n / stories);
  return {
    ms,
    cost: {
      node_cpu_us: perStory(cpu.user + cpu.system),
      redis_cpu_us: perStory(redisAfter.cpuUs - redisBefore.cpuUs),
      // Less the two INFO calls of the measurement itself.
      redis_commands: Math.round((redisAfter.commands - redisBefore.commands - 2) / stories),
    },
  };
}

/** The median of each field over rounds. */
export function medianCost(costs: readonly StoryCost[]): StoryCost {
  return {
    node_cpu_us: median(costs.map((c) => c.node_cpu_us)),
    redis_cpu_us: median(costs.map((c) => c.redis_cpu_us)),
    redis_commands: median(costs.map((c) => c.redis_commands)),
  };
}
