/**
 * What a story costs, beside how fast stories go: CPU of this process (both systems run in it,
 * one at a time) and of Redis, and the commands Redis ran and the bytes it read, per story. On a 2-core machine the
 * process and Redis share the cores, so the throughput ratio follows their sum.
 */
import type { Redis } from 'ioredis';
import { median } from './story-stats.js';

export interface StoryCost {
  node_cpu_us: number;
  redis_cpu_us: number;
  redis_commands: number;
  /** Bytes Redis read from its clients (INFO stats total_net_input_bytes), per story. */
  redis_net_input_bytes: number;
}

interface RedisCounters {
  cpuUs: number;
  commands: number;
  inputBytes: number;
}

async function readRedisCounters(redis: Redis): Promise<RedisCounters> {
  const [cpu, stats, traffic] = await Promise.all([redis.info('cpu'), redis.info('commandstats'), redis.info('stats')]);
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(cpu)?.[1] ?? 0);
  let commands = 0;
  for (const match of stats.matchAll(/cmdstat_[^:]+:calls=(\d+)/g)) commands += Number(match[1]);
  const inputBytes = Number(/total_net_input_bytes:(\d+)/.exec(traffic)?.[1] ?? 0);
  return { cpuUs: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6, commands, inputBytes };
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
      // Less the three INFO calls of the measurement itself.
      redis_commands: Math.round((redisAfter.commands - redisBefore.commands - 3) / stories),
      redis_net_input_bytes: perStory(redisAfter.inputBytes - redisBefore.inputBytes),
    },
  };
}

/** The median of each field over rounds. */
export function medianCost(costs: readonly StoryCost[]): StoryCost {
  return {
    node_cpu_us: median(costs.map((c) => c.node_cpu_us)),
    redis_cpu_us: median(costs.map((c) => c.redis_cpu_us)),
    redis_commands: median(costs.map((c) => c.redis_commands)),
    redis_net_input_bytes: median(costs.map((c) => c.redis_net_input_bytes)),
  };
}
