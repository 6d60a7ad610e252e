/**
 * A Redis call made on a request's behalf, bounded by the outage: refused at once with 503
 * `redis_unavailable` while Redis is known to be down, and after `timeoutMs` when it went away
 * while the call was waiting (the services' clients queue commands through an outage, so a call
 * would otherwise wait for all of it).
 */
import type { Redis } from 'ioredis';
import { redisUnavailable } from '@switchyard/redis';
import { HttpError } from './errors.js';

const unavailable = (reason: string) =>
  new HttpError({ status: 503, code: 'redis_unavailable', message: `The service cannot answer now: ${reason}`, details: { reason, retry_after_s: 1 }, headers: { 'Retry-After': '1' } });

/** Runs `call`, answering HttpError 503 as the module's comment says. */
export async function boundedRedisCall<T>(redis: Redis, call: () => Promise<T>, timeoutMs = 500): Promise<T> {
  const down = redisUnavailable(redis);
  if (down) throw unavailable(down);
  let timer: NodeJS.Timeout | undefined;
  const outage = new Promise<never>((_resolve, reject) => {
    const check = () => {
      const reason = redisUnavailable(redis);
      if (reason) reject(unavailable(reason));
      else timer = setTimeout(check, timeoutMs);
    };
    timer = setTimeout(check, timeoutMs);
  });
  try {
    return await Promise.race([call(), outage]);
  } finally {
    clearTimeout(timer);
  }
}
