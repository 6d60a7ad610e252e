/**
 * Redis as this process sees it, measured at scrape time: a PING (bounded to half a second, as
 * `/health` does), its round trip, and whether it was answered.
 */
import type { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import { checkRedis, type RedisCheck } from '@switchyard/redis';

export function redisMetrics(registry: Registry, redis: Redis): void {
  // Both gauges read one PING per scrape, whichever collects first.
  let pending: Promise<RedisCheck> | undefined;
  const check = () => {
    if (!pending) {
      pending = checkRedis(redis);
      void pending.finally(() => setTimeout(() => (pending = undefined), 100).unref());
    }
    return pending;
  };
  new Gauge({
    name: 'switchyard_redis_up',
    help: '1 when Redis answered a PING within 0.5 s at scrape time, else 0.',
    registers: [registry],
    async collect() {
      this.set((await check()).healthy ? 1 : 0);
    },
  });
  new Gauge({
    name: 'switchyard_redis_ping_seconds',
    help: 'Round trip of a PING to Redis at scrape time (absent while Redis does not answer).',
    registers: [registry],
    async collect() {
      const result = await check();
      if (result.healthy) this.set(result.latency_ms / 1000);
      else this.reset();
    },
  });
}
