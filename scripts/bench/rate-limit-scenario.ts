/**
 * Agent runs against a rate-limited model (issue #42): a batch of research-agent runs through the
 * real stack (the API and the reference services in this process, worker processes as deployed, at
 * their default concurrency) against the offline model set to admit `limit.requests` per
 * `limit.windowMs` window, the workers told the same limit (LLM_REQUESTS_PER_MINUTE). Figures:
 * runs failed, the share of requests the model refused with 429, and the batch's time as a ratio
 * of the limit's own bound (the requests the model admitted, at the limit's rate).
 *
 * Targets (issue #42): no run fails, 429s at most 5 % of requests, the batch within 1.2× of the bound.
 */
import { startTestStack } from '../../services/orchestrator/src/testing/stack.js';
import { waitFor, WorkerProcesses } from '../../services/orchestrator/src/testing/worker-processes.js';

export interface RateLimitScenarioOptions {
  /** Redis the stack runs on (a cluster URL works). */
  redisUrl: string;
  /** Agent runs in the batch. Default 200. */
  runs?: number;
  /** What the model admits. Default 10 requests per 5000 ms. */
  limit?: { requests: number; windowMs: number };
  /** Worker processes. Default 2. */
  workers?: number;
  /** WORKER_CONCURRENCY of each (default: the workers' own default). */
  concurrency?: number;
  /** Longest the batch may take before the scenario gives up. Default 20 × the bound of two requests a run, at least 10 minutes. */
  timeoutMs?: number;
}

export const RATE_LIMIT_TARGETS = { runs_failed_max: 0, rate_429_max: 0.05, bound_ratio_max: 1.2 } as const;

export interface RateLimitScenarioResult {
  runs: number;
  workers: number;
  concurrency: number | 'default';
  limit: { requests: number; window_ms: number };
  runs_completed: number;
  runs_failed: number;
  requests: number;
  requests_429: number;
  /** 429s as a fraction of the requests the model saw. */
  rate_429: number;
  batch_s: number;
  /** The requests the model admitted, at the limit's rate: no deployment could send them sooner. */
  bound_s: number;
  /** batch_s ÷ bound_s. */
  bound_ratio: number;
  /** The most requests the model saw in one of its windows. */
  busiest_window: number;
  targets: typeof RATE_LIMIT_TARGETS;
  met: boolean;
}

const round = (n: number, places = 3) => Math.round(n * 10 ** places) / 10 ** places;

export async function benchRateLimit(options: RateLimitScenarioOptions): Promise<RateLimitScenarioResult> {
  const runs = options.runs ?? 200;
  const limit = options.limit ?? { requests: 10, windowMs: 5000 };
  const workerCount = options.workers ?? 2;
  const timeoutMs = options.timeoutMs ?? Math.max(600_000, 20 * ((2 * runs * limit.windowMs) / limit.requests));
  const stack = await startTestStack({ label: 'bench-rate-limit', redisUrl: options.redisUrl, inProcessWorkers: false });
  const workers = new WorkerProcesses(() => stack);
  try {
    const model = stack.tools.model;
    const env: Record<string, string> = {
      MODEL_SERVICE_URL: model.baseUrl,
      LLM_REQUESTS_PER_MINUTE: String(Math.floor((limit.requests * 60_000) / limit.windowMs)),
      ...(options.concurrency ? { WORKER_CONCURRENCY: String(options.concurrency) } : {}),
    };
    process.stderr.write(`rate limit: ${workerCount} worker processes, ${runs} agent runs against a model admitting ${limit.requests} per ${limit.windowMs} ms…\n`);
    await Promise.all(Array.from({ length: workerCount }, () => workers.startListening(env)));
    model.faults.rateLimit = limit;
    const seenBefore = model.stats.rateLimit.arrivals.length;
    const started = performance.now();
    const items = Array.from({ length: runs }, (_, i) => ({ topic: `coral reefs, question ${i}` }));
    const accepted = await stack.json<{ batch_id: string }>('/v1/batches', { method: 'POST', body: JSON.stringify({ pipeline: 'research-agent', items }) });
    if (accepted.status !== 202) throw new Error(`the batch was refused: ${JSON.stringify(accepted.body)}`);
    const batch = await waitFor(
      async () => (await stack.json<{ status: string; counts: Record<string, number> }>(`/v1/batches/${accepted.body.batch_id}?limit=1`)).body,
      (view) => view.status === 'done',
      'the batch has ended',
      timeoutMs,
    );
    const batchS = (performance.now() - started) / 1000;
    const arrivals = model.stats.rateLimit.arrivals.slice(seenBefore);
    const refused = arrivals.filter((a) => !a.admitted).length;
    const boundS = ((arrivals.length - refused) * limit.windowMs) / limit.requests / 1000;
    const perWindow = new Map<number, number>();
    for (const { at } of arrivals) perWindow.set(Math.floor(at / limit.windowMs), (perWindow.get(Math.floor(at / limit.windowMs)) ?? 0) + 1);
    const failed = runs - (batch.counts.completed ?? 0);
    const result = {
      runs,
      workers: workerCount,
      concurrency: options.concurrency ?? ('default' as const),
      limit: { requests: limit.requests, window_ms: limit.windowMs },
      runs_completed: batch.counts.completed ?? 0,
      runs_failed: failed,
      requests: arrivals.length,
      requests_429: refused,
      rate_429: round(arrivals.length === 0 ? 0 : refused / arrivals.length),
      batch_s: round(batchS, 1),
      bound_s: round(boundS, 1),
      bound_ratio: round(boundS === 0 ? 0 : batchS / boundS),
      busiest_window: Math.max(0, ...perWindow.values()),
      targets: RATE_LIMIT_TARGETS,
    };
    return { ...result, met: result.runs_failed <= RATE_LIMIT_TARGETS.runs_failed_max && result.rate_429 <= RATE_LIMIT_TARGETS.rate_429_max && result.bound_ratio <= RATE_LIMIT_TARGETS.bound_ratio_max };
  } finally {
    await workers.killAll();
    await stack.close();
  }
}
