/**
 * `Idempotency-Key`: the first request with a key reserves it with a fingerprint of its body and
 * the id it will create; a repeat with the same body gets that id back, one with another body a 409.
 * The route then finishes what a first request may have left half done (its process died after
 * claiming the key): see `repeated` in startPipelineRun and startPipelineBatch.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { HttpError } from '@switchyard/http-kit';
import { crashPoint } from '@switchyard/pipeline';

/** The `Idempotency-Key` header: 1 to 200 visible ASCII characters. */
export const IdempotencyKey = z.string().regex(/^[\x21-\x7e]{1,200}$/);
const TTL_SECONDS = 24 * 3600;

function fingerprint(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

/**
 * Returns the id to use: `freshId` when the key is new (or absent), the earlier id for a repeat.
 * @param options.scope keeps keys of different endpoints apart, e.g. "stories"
 * @param options.retentionSeconds how long a finished run is kept: a key never outlives its run
 */
export async function claimIdempotencyKey(options: { req: Request; redis: Redis; keyFor: (key: string) => string; scope: string; body: unknown; freshId: string; retentionSeconds: number }): Promise<{ id: string; repeated: boolean; release(): Promise<void> }> {
  const none = async () => undefined;
  const key = options.req.get('idempotency-key');
  if (key === undefined) return { id: options.freshId, repeated: false, release: none };
  if (!IdempotencyKey.safeParse(key).success) {
    throw new HttpError({ status: 400, code: 'invalid_idempotency_key', message: 'Idempotency-Key must be 1 to 200 visible ASCII characters' });
  }
  const redisKey = options.keyFor(`${options.scope}:${key}`);
  const print = fingerprint(options.body);
  const claimed = await options.redis.set(redisKey, JSON.stringify({ print, id: options.freshId }), 'EX', Math.min(TTL_SECONDS, options.retentionSeconds), 'NX');
  // A request that fails after claiming the key releases it, so a retry is not answered with nothing.
  if (claimed === 'OK') {
    crashPoint('idempotency.claimed');
    return { id: options.freshId, repeated: false, release: async () => void (await options.redis.del(redisKey)) };
  }
  const earlier = JSON.parse((await options.redis.get(redisKey)) ?? '{}') as { print?: string; id?: string };
  if (earlier.print !== print || !earlier.id) {
    throw new HttpError({ status: 409, code: 'idempotency_conflict', message: 'This Idempotency-Key was used with a different request body' });
  }
  return { id: earlier.id, repeated: true, release: none };
}
