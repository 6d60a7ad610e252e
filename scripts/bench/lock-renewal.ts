/**
 * What keeping a job's lock costs Redis: `ACTIVE` jobs held by one BullMQ worker (jobs that wait
 * for minutes, as slow tool calls do) for `WINDOW_S` seconds, once with the workers' lock and
 * stalled interval and once with locks long enough that nothing is renewed in the window (the
 * stalled check runs in both). The difference in Redis CPU (INFO cpu) and in script calls (INFO
 * commandstats) over the renewals made is the cost of one renewal per job.
 *
 *   npx tsx scripts/bench/lock-renewal.ts [active jobs, default 1000] [window s, default 30]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createRedisClient, RestartableRedis } from '@switchyard/redis';
import { loadEnv as loadWorkersEnv } from '@switchyard/workers';
import { redisCpuSeconds } from './redis-info.js';

const ACTIVE = Number(process.argv[2] ?? 1000);
const WINDOW_S = Number(process.argv[3] ?? 30);

async function counters(redis: Redis) {
  const [cpu, stats] = await Promise.all([redis.info('cpu'), redis.info('commandstats')]);
  const evalsha = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats);
  return { cpuS: redisCpuSeconds(cpu), scriptCalls: Number(evalsha?.[1] ?? 0), scriptUsec: Number(evalsha?.[2] ?? 0) };
}

/** Holds ACTIVE jobs for the window with the given lock; what Redis spent meanwhile, and the renewals made. */
async function hold(url: string, lockDurationMs: number, lockRenewMs: number, stalledIntervalMs: number) {
  const connection = createRedisClient(url);
  const prefix = `lock-renewal-${lockDurationMs}`;
  const queue = new Queue('held', { connection, prefix });
  let renewed = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  const worker = new Worker('held', async () => {
    started += 1;
    await released;
  }, { connection: createRedisClient(url), prefix, concurrency: ACTIVE, lockDuration: lockDurationMs, lockRenewTime: lockRenewMs, stalledInterval: stalledIntervalMs });
  worker.on('locksRenewed', ({ count }: { count: number }) => (renewed += count));
  await queue.addBulk(Array.from({ length: ACTIVE }, (_, i) => ({ name: 'held', data: { i } })));
  while (started < ACTIVE) await sleep(100);
  await sleep(1000); // the first renewal timer settles
  renewed = 0;
  const before = await counters(connection);
  await sleep(WINDOW_S * 1000);
  const after = await counters(connection);
  const seen = renewed;
  release();
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await connection.quit();
  return { renewals: seen, redisCpuMs: (after.cpuS - before.cpuS) * 1000, scriptCalls: after.scriptCalls - before.scriptCalls, scriptUsec: after.scriptUsec - before.scriptUsec };
}

const defaults = loadWorkersEnv({});
const redis = await RestartableRedis.start({ searchPath: process.env.PATH ?? '' });
try {
  const renewing = await hold(redis.url, defaults.lockDurationMs, defaults.lockRenewMs, defaults.stalledIntervalMs);
  const still = await hold(redis.url, 600_000, 300_000, defaults.stalledIntervalMs);
  const perRenewalUs = (renewing.scriptUsec - still.scriptUsec) / Math.max(1, renewing.renewals);
  process.stdout.write(
    `${JSON.stringify({
      active_jobs: ACTIVE,
      window_s: WINDOW_S,
      lock_duration_ms: defaults.lockDurationMs,
      lock_renew_ms: defaults.lockRenewMs,
      stalled_interval_ms: defaults.stalledIntervalMs,
      renewing: renewing,
      not_renewing: still,
      renewals_per_job_per_s: Math.round((renewing.renewals / ACTIVE / WINDOW_S) * 1000) / 1000,
      script_us_per_renewal: Math.round(perRenewalUs * 100) / 100,
      /** Redis CPU the renewals took, ms per second, per 1,000 active jobs. */
      renewal_redis_cpu_ms_per_s_per_1000_active: Math.round(((renewing.redisCpuMs - still.redisCpuMs) / WINDOW_S) * (1000 / ACTIVE) * 100) / 100,
    })}\n`,
  );
} finally {
  await redis.close();
}
