/**
 * Reading a run's (or a batch's) event stream from a given event id: what SSE endpoints and
 * `wait_for_run`-style callers use to replay history and then follow live events.
 */
import type { Redis } from 'ioredis';

export interface StreamEvent {
  /** The Redis stream id, e.g. "1732300000000-0": the SSE event id. */
  id: string;
  type: string;
  data: string;
}

/** A valid resume point: a stream id, or "0" for the start. */
export const EVENT_ID_PATTERN = /^\d+(-\d+)?$/;

/** Stream entries (XRANGE's, or one stream's of XREAD) as events. */
export function toStreamEvents(entries: [string, string[]][]): StreamEvent[] {
  return entries.map(([id, fields]) => {
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
    return { id, type: map.get('type') ?? 'message', data: map.get('data') ?? '{}' };
  });
}

/**
 * Events after `after` ("0" for all). With `blockMs`, waits up to that long for the first new
 * one; pass a connection of its own then, since a blocked connection serves nobody else.
 */
export async function readEvents(options: { redis: Redis; key: string; after: string; blockMs?: number; count?: number }): Promise<StreamEvent[]> {
  const count = String(options.count ?? 500);
  const reply = options.blockMs
    ? await options.redis.xread('COUNT', count, 'BLOCK', String(options.blockMs), 'STREAMS', options.key, options.after)
    : await options.redis.xread('COUNT', count, 'STREAMS', options.key, options.after);
  const entries = reply?.[0]?.[1] ?? [];
  return toStreamEvents(entries as [string, string[]][]);
}
