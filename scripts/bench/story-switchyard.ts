/**
 * Switchyard as the benchmark drives it: the real orchestrator (HTTP) and real workers in this
 * process, the workers calling the instant tools, under a prefix of its own. Completion is
 * awaited on the run's or batch's event stream, the way an SSE client follows it.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { parseToolServicesEnv } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { startOrchestrator } from '@switchyard/orchestrator';
import { BatchStore, createPipelineQueues, newPipelineRun, PipelineStore, readEvents, requirePipeline, rootJobs, RunStore, runKeys } from '@switchyard/pipeline';
import { createRedisClient } from '@switchyard/redis';
import { startWorkers, type RunningWorkers } from '@switchyard/workers';
import { createInstantTools, type ToolProbe } from './instant-tools.js';
import { deletePrefix } from './story-stats.js';

export interface SwitchyardUnderTest {
  /** POST /v1/batches with `count` stories, waits for the batch's `done` and compacts its runs; returns its counts. */
  runBatch(count: number): Promise<Record<string, number>>;
  /** POST /v1/stories, then waits for the run's `done`; returns the run id and its final status. */
  runStory(topic: string, polished?: Promise<void>): Promise<{ runId: string; status: string }>;
  /**
   * `count` stories started the way the hand-built flow starts them (runs written, first jobs
   * added 250 at a time, no API or dispatcher), then waits for the batch's `done`.
   */
  runBatchDirect(count: number): Promise<Record<string, number>>;
  /** Times POST /v1/batches with `count` items until the 202 (seconds). */
  acceptBatch(count: number): Promise<number>;
  /** Times one POST /v1/stories until the 202 (ms). */
  acceptStory(topic: string): Promise<number>;
  /** The BullMQ workers (none without `workers`), e.g. to read job timestamps as jobs complete. */
  workers: readonly Worker[];
  close(): Promise<void>;
}

const POLISH_GUARD_MS = 30_000;
/** A compactor interval no measurement lasts: the bench runs its passes itself. */
export const MANUAL_COMPACTION_MS = 24 * 3600_000;
const topics = (count: number, label: string) => Array.from({ length: count }, (_, i) => ({ topic: `${label} story ${i}` }));

/**
 * @param options.workers start workers (false: the orchestrator alone, for timing acceptance)
 * @param options.concurrency per stage queue
 */
export async function startSwitchyard(options: { redisUrl: string; prefix: string; concurrency: number; workers: boolean; probe?: ToolProbe }): Promise<SwitchyardUnderTest> {
  const logger = createLogger({ name: 'bench', level: 'silent' });
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  let workers: RunningWorkers | undefined;
  if (options.workers) {
    workers = await startWorkers({
      redisUrl: options.redisUrl,
      prefix: options.prefix,
      logger,
      tools: createInstantTools(options.probe),
      defaultConcurrency: options.concurrency,
      // Compacted when the bench says (compact()), inside the measurement of the runs it compacts.
      compaction: { intervalMs: MANUAL_COMPACTION_MS, afterMs: 0 },
    });
  }
  // The tool services are never called: the orchestrator only needs their addresses for /health.
  // Batch acceptance posts 10,000-item batches with no workers to end them: more than one key's default bound of live runs.
  const api = await startOrchestrator({ redisUrl: options.redisUrl, prefix: options.prefix, apiKeys: [apiKey], toolServices: parseToolServicesEnv({}), logger, limits: { liveRunsPerKey: 1_000_000 } });
  // Blocking reads need a connection of their own.
  const reader: Redis = createRedisClient(options.redisUrl);
  const keys = runKeys(options.prefix);

  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 202) throw new Error(`POST ${path} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
    return (await res.json()) as T;
  };
  /** Follows a stream until its `done` event and returns that event's data; fails after a minute without events. */
  const waitForDone = async (key: string): Promise<unknown> => {
    let after = '0';
    for (let quiet = 0; quiet < 6; ) {
      const events = await readEvents({ redis: reader, key, after, blockMs: 10_000, count: 1000 });
      const done = events.find((e) => e.type === 'done');
      if (done) return JSON.parse(done.data) as unknown;
      quiet = events.length === 0 ? quiet + 1 : 0;
      after = events.at(-1)?.id ?? after;
    }
    throw new Error(`no event on ${key} for a minute`);
  };

  const direct = { connection: createRedisClient(options.redisUrl) };
  const store = new RunStore({ redis: direct.connection, prefix: options.prefix });
  const batches = new BatchStore(store);
  const pipelines = new PipelineStore({ redis: direct.connection, prefix: options.prefix });
  const queues = createPipelineQueues({ connection: direct.connection, prefix: options.prefix });

  return {
    workers: workers?.workers ?? [],
    async runBatchDirect(count) {
      const pipeline = await requirePipeline({ pipelines }, 'story');
      const runs = await Promise.all(topics(count, 'direct').map((input) => newPipelineRun(pipeline, input)));
      const { batchId, runIds } = await batches.createBatch({ runs });
      // The runs' first add of their jobs, as the dispatcher's: the first stage carries the request.
      const requests = new Map(runs.map((run) => [run.id, run.request]));
      for (let i = 0; i < runIds.length; i += 250) await queues.steps.add((await Promise.all(runIds.slice(i, i + 250).map((id) => rootJobs(pipeline, id, batchId, undefined, undefined, { request: requests.get(id) })))).flat());
      const done = (await waitForDone(keys.batchEvents(batchId))) as { counts: Record<string, number> };
      await workers?.compactor.pass();
      return done.counts;
    },
    async runBatch(count) {
      const { batch_id } = await post<{ batch_id: string }>('/v1/batches', { items: topics(count, 'throughput') });
      const done = (await waitForDone(keys.batchEvents(batch_id))) as { counts: Record<string, number> };
      await workers?.compactor.pass();
      return done.counts;
    },
    async runStory(topic, polished) {
      const { run_id } = await post<{ run_id: string }>('/v1/stories', { topic });
      // Waiting in process first keeps the blocking reader from waking on every event of the run;
      // a run that fails never polishes, so after a while the stream is read anyway.
      if (polished) {
        const guard = new AbortController();
        await Promise.race([polished, sleep(POLISH_GUARD_MS, undefined, { signal: guard.signal }).catch(() => undefined)]);
        guard.abort();
      }
      const done = (await waitForDone(keys.events(run_id))) as { status: string };
      return { runId: run_id, status: done.status };
    },
    async acceptBatch(count) {
      const body = JSON.stringify({ items: topics(count, 'accept') });
      const started = performance.now();
      const res = await fetch(`${api.url}/v1/batches`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body });
      const seconds = (performance.now() - started) / 1000;
      if (res.status !== 202) throw new Error(`POST /v1/batches answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
      await res.arrayBuffer();
      return seconds;
    },
    async acceptStory(topic) {
      const started = performance.now();
      await post<{ run_id: string }>('/v1/stories', { topic });
      return performance.now() - started;
    },
    async close() {
      await queues.close();
      await direct.connection.quit();
      await api.close();
      await workers?.close(5000);
      await deletePrefix(reader, options.prefix);
      await reader.quit();
    },
  };
}
