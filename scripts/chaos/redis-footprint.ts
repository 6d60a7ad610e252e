/**
 * What a prefix holds in Redis: its keys, their bytes (MEMORY USAGE), and how many are a run's or
 * a batch's. BullMQ's own event stream per queue is left out of the bytes: it is trimmed by length
 * (BULLMQ_EVENTS_MAXLEN), not by age, so it does not shrink with retention.
 */
import { createRedisClient, keyspace, scanKeys } from '@switchyard/redis';

export interface Footprint {
  keys: number;
  bytes: number;
  runKeys: number;
}

const isQueueEventStream = (key: string) => /:(story-[a-z]+|run-dispatch|aceflow-stage):events$/.test(key);

export async function redisFootprint(url: string, prefix: string): Promise<Footprint> {
  const redis = createRedisClient(url, { maxRetriesPerRequest: 3 });
  try {
    // Leases and BullMQ's stalled-check markers come and go every interval, whatever ran; the
    // list of ended runs not yet compacted is emptied within seconds.
    const keys = (await scanKeys(redis, keyspace(prefix).pattern)).filter((k) => !k.endsWith(':lease') && !k.endsWith(':stalled-check') && !k.endsWith(':runs:ended'));
    let bytes = 0;
    for (const key of keys) if (!isQueueEventStream(key)) bytes += (await redis.memory('USAGE', key)) ?? 0;
    return { keys: keys.length, bytes, runKeys: keys.filter((k) => /:(run|batch|idem):/.test(k)).length };
  } finally {
    redis.disconnect();
  }
}
