/**
 * Switchyard for the benchmark: the real orchestrator and real workers in this process, the
 * workers calling zero-latency tools, under a prefix of its own.
 *
 * (Reconstructed from its use in measures.ts after this file was overwritten by mistake by a
 * concurrent edit; the original was never committed.)
 */
import { parseToolServicesEnv } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { startOrchestrator } from '@switchyard/orchestrator';
import { readEvents, runKeys, STAGE_QUEUE_KEYS } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startWorkers } from '@switchyard/workers';
import { zeroLatencyTools, type CallObserver } from './zero-tools.js';

export async function startBenchStack(options: { redisUrl: string; prefix: string; concurrency: number; onCall?: CallObserver }) {
  const logger = createLogger({ name: 'bench', level: 'silent' });
  const workers = await startWorkers({
    redisUrl: options.redisUrl,
    prefix: options.prefix,
    logger,
    tools: zeroLatencyTools(options.onCall),
    queues: Object.fromEntries(STAGE_QUEUE_KEYS.map((key) => [key, { concurrency: options.concurrency }])),
  });
  const api = await startOrchestrator({ redisUrl: options.redisUrl, prefix: options.prefix, apiKeys: ['bench-key'], toolServices: parseToolServicesEnv({}), logger });
  // A blocking read needs a connection of its own.
  const reader = createRedisClient(options.redisUrl);
  const keys = runKeys(options.prefix);
  return {
    async post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
      const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as T };
    },
    /** Follows the batch's event stream until its `done` event. */
    async waitForBatch(batchId: string): Promise<void> {
      let after = '0';
      for (;;) {
        const events = await readEvents({ redis: reader, key: keys.batchEvents(batchId), after, blockMs: 10_000, count: 1000 });
        if (events.some((e) => e.type === 'done')) return;
        after = events.at(-1)?.id ?? after;
      }
    },
    async close() {
      await api.close();
      await workers.close(5000);
      await reader.quit();
    },
  };
}
