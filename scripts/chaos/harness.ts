/**
 * What every chaos scenario stands on: the whole stack as separate processes (the launcher's
 * startStack) on a Redis of the run's own that can be killed and restarted, under a key prefix
 * per scenario; and reading what a client would see of each run.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { RestartableRedis } from '@switchyard/redis';
import { Children, type Child } from '../launcher/processes.js';
import { startStack } from '../launcher/stack.js';

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  figures: Record<string, unknown>;
}

export interface ScenarioOptions {
  redis: RestartableRedis;
  /** Stories per batch scenario (the sizes by default). */
  size: (fallback: number) => number;
  /** `--seed=N`: the seed of a scenario that generates its cases (plain-jsonata); a random one when absent. */
  seed?: number | undefined;
}

export const say = (line: string) => process.stderr.write(`${line}\n`);

export interface ChaosStack {
  apiUrl: string;
  headers: Record<string, string>;
  children: Children;
  prefix: string;
  /** The reference tool services: name → URL, and the key they take. */
  toolServices: Record<string, string>;
  toolKey: string;
  /** `/metrics` of the orchestrator, then of each worker process, then of the MCP bridge when started. */
  metricsUrls: string[];
  /** The MCP bridge's `/mcp`, when started (`mcp`). */
  mcpUrl?: string | undefined;
  /** The worker processes now running (a killed one is restarted by the launcher). */
  workers(): Child[];
  post<T>(path: string, body: unknown): Promise<T>;
  get<T>(path: string): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/** Starts the stack with `env` on top of the scenario's own prefix (or `prefix`). */
export async function startChaosStack(options: { redis: Pick<RestartableRedis, 'url'>; scenario: string; env?: Record<string, string>; workers?: number; prefix?: string; mcp?: boolean; apiKey?: string }): Promise<ChaosStack> {
  const children = new Children();
  const prefix = options.prefix ?? `chaos-${options.scenario}-${Date.now().toString(36)}`;
  const toolKey = `chaos-${Date.now().toString(36)}`;
  const env = { LOG_LEVEL: 'warn', QUEUE_PREFIX: prefix, TOOL_SERVICE_API_KEY: toolKey, ...options.env };
  const toolServices: Record<string, string> = {};
  // The launcher names each service's URL in a line of its own.
  const note = (line: string) => {
    const match = /^(search|outline|writing|editing)\s+(http\S+)/.exec(line);
    if (match?.[1] && match[2]) toolServices[match[1]] = match[2];
  };
  const stack = await startStack({ redisUrl: options.redis.url, env, workers: options.workers ?? 2, port: undefined, children, say: note, mcp: options.mcp ?? false, apiKey: options.apiKey });
  const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
  return {
    apiUrl: stack.apiUrl,
    headers,
    children,
    prefix,
    toolServices,
    toolKey,
    metricsUrls: [`${stack.apiUrl}/metrics`, ...stack.workerMetricsUrls, ...(stack.mcpUrl ? [stack.mcpUrl.replace(/\/mcp$/, '/metrics')] : [])],
    mcpUrl: stack.mcpUrl,
    workers: () => children.all.filter((c) => c.name.startsWith('worker-') && c.process.exitCode === null && c.process.signalCode === null),
    /** POSTs as a careful client does: a 503 is tried again after its Retry-After, for up to 30 s. */
    async post<T>(path: string, body: unknown) {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await fetch(`${stack.apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
        if (res.status === 202) return (await res.json()) as T;
        const text = await res.text();
        if (res.status !== 503 || Date.now() > deadline) throw new Error(`POST ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
      }
    },
    async get<T>(path: string) {
      const res = await fetch(`${stack.apiUrl}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
      return { status: res.status, body: (await res.json()) as T };
    },
    close: () => children.stopAll(),
  };
}

/** Runs `work` on a stack of its own, stopped afterwards whatever happens. */
export async function withStack<T>(options: Parameters<typeof startChaosStack>[0], work: (stack: ChaosStack) => Promise<T>): Promise<T> {
  const stack = await startChaosStack(options);
  try {
    return await work(stack);
  } finally {
    await stack.close();
  }
}

export interface RunEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/** Every event of a run, as an SSE client reads them (the stream ends after `done`). */
export async function readRunEvents(stack: Pick<ChaosStack, 'apiUrl' | 'headers'>, runId: string, timeoutMs = 120_000): Promise<RunEvent[]> {
  const res = await fetch(`${stack.apiUrl}/v1/runs/${runId}/events`, { headers: stack.headers, signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok || !res.body) throw new Error(`events of ${runId}: HTTP ${res.status}`);
  const events: RunEvent[] = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push({ id: value.id ?? '', type: value.event ?? 'message', data: JSON.parse(value.data) as Record<string, unknown> });
    if (value.event === 'done') {
      await reader.cancel();
      break;
    }
  }
  return events;
}

/** Polls until `ok` holds or `timeoutMs` passes; returns whether it held. */
export async function until(ok: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ok().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
