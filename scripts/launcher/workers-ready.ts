/**
 * Worker processes have no HTTP port; they are ready when BullMQ lists one worker per process on
 * every queue a story run needs (BullMQ names each worker's Redis connection, and
 * `getWorkersCount` counts them).
 */
import { Queue } from 'bullmq';
import { TOOL_SERVICE_KEYS } from '@switchyard/contracts';
import { QUEUES, toolQueue } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { ChildFailed, type Child } from './processes.js';

/** Resolves when every queue has `workers.length` workers; `note` is set when Redis would not say. */
export async function waitForWorkers(options: { redisUrl: string; prefix: string; workers: Child[]; timeoutMs?: number }): Promise<{ note?: string }> {
  const connection = createRedisClient(options.redisUrl, { maxRetriesPerRequest: 1 });
  const queues = [...TOOL_SERVICE_KEYS.map((key) => toolQueue(key)), QUEUES.dispatch].map((name) => new Queue(name, { connection, prefix: options.prefix }));
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  try {
    for (;;) {
      const dead = options.workers.find((w) => w.process.exitCode !== null || w.process.signalCode !== null);
      if (dead) throw new ChildFailed(dead, `exited with code ${dead.process.exitCode ?? dead.process.signalCode}`);
      let counts: number[];
      try {
        counts = await Promise.all(queues.map((q) => q.getWorkersCount()));
      } catch (error) {
        // Some managed Redis services refuse CLIENT LIST: the workers then simply start when they start.
        return { note: `could not count the workers (${error instanceof Error ? error.message : String(error)}); not waiting for them` };
      }
      if (counts.every((n) => n >= options.workers.length)) return {};
      if (Date.now() > deadline) throw new ChildFailed(options.workers[0] as Child, `and its siblings were not all listening on the queues after ${options.timeoutMs ?? 60_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
  }
}
