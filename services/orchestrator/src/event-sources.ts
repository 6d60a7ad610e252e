/**
 * The event streams the API serves over SSE: a run's (its archive too, once compacted) and a
 * batch's. Each says how to page through its events without waiting, and how to tell that it has
 * ended before a client's resume point, so that such a client gets the `done` at once instead of
 * waiting for events that will never come.
 */
import type { Redis } from 'ioredis';
import { RunStatus, TERMINAL_STATUSES } from '@switchyard/contracts';
import { compareStreamIds, findRunDone, readEvents, runEventPages, toStreamEvents, type RunStore, type StreamEvent } from '@switchyard/pipeline';
import type { EventSource } from './sse.js';

/** The closing event, when it is at or before `after`: a client already past it gets it again, and nothing more. */
const atOrBefore = (done: StreamEvent | null, after: string) => (done && compareStreamIds(done.id, after) <= 0 ? done : null);

export function runEventSource(deps: { redis: Redis; store: RunStore }, runId: string): EventSource {
  const { redis, store } = deps;
  return {
    key: store.keys.events(runId),
    read: runEventPages({ redis, keys: store.keys, runId }),
    async endedAt(after) {
      const status = RunStatus.safeParse(await redis.hget(store.keys.run(runId), 'status'));
      if (!status.success || !TERMINAL_STATUSES.includes(status.data)) return null;
      // Ending a run writes its done in the same step; a run without one still ends its stream.
      const done = (await findRunDone(redis, store.keys, runId)) ?? { id: after, type: 'done', data: JSON.stringify({ status: status.data }) };
      return atOrBefore(done, after);
    },
    complete: (done) => store.withRunResult(runId, done),
  };
}

export function batchEventSource(deps: { redis: Redis; store: RunStore }, batchId: string): EventSource {
  const { redis, store } = deps;
  const key = store.keys.batchEvents(batchId);
  return {
    key,
    read: (after) => readEvents({ redis, key, after }),
    async endedAt(after) {
      // A batch's done is its last event, written with the count that ends it.
      const recent = toStreamEvents((await redis.xrevrange(key, '+', '-', 'COUNT', 4)) as [string, string[]][]);
      return atOrBefore(recent.find((event) => event.type === 'done') ?? null, after);
    },
  };
}
