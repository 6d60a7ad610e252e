/**
 * Redis' side of the agent bench: its CPU and its commands (by name) from INFO, before and after a
 * measurement, so that what an agent's tool call asks of Redis is seen next to a tool step's.
 */
import type { Redis } from 'ioredis';
import { round } from './story-stats.js';
import { redisCpuSeconds } from './redis-info.js';

export interface RedisUse {
  cpuUs: number;
  /** Calls by command name (lower case, as INFO commandstats names them). */
  calls: Map<string, number>;
}

export async function readRedisUse(redis: Redis): Promise<RedisUse> {
  const [cpu, stats] = await Promise.all([redis.info('cpu'), redis.info('commandstats')]);
  const calls = new Map<string, number>();
  for (const match of stats.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) calls.set(String(match[1]), Number(match[2]));
  return { cpuUs: redisCpuSeconds(cpu) * 1e6, calls };
}

/** Commands per tool call between two readings: the total, and the ten most called. */
export function commandsPerCall(before: RedisUse, after: RedisUse, toolCalls: number): { total: number; top: Record<string, number> } {
  const delta = [...after.calls].map(([name, n]) => [name, n - (before.calls.get(name) ?? 0)] as const).filter(([, n]) => n > 0);
  // Less the INFO calls of the readings themselves.
  const total = delta.reduce((sum, [name, n]) => sum + (name === 'info' ? 0 : n), 0);
  const top = delta
    .filter(([name]) => name !== 'info')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  return { total: round(total / toolCalls, 2), top: Object.fromEntries(top.map(([name, n]) => [name, round(n / toolCalls, 2)])) };
}
