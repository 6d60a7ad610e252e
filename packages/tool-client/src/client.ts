/**
 * A client for one HTTP tool service (seed 004). Every call is checked against the tool's
 * published inputSchema, made in sync, async or stream mode under a per-attempt timeout,
 * retried when the failure may pass, guarded by a circuit breaker, and its reply checked.
 */
import { HealthReport, type ToolCallMode, type ToolDescriptor, type StreamProgress } from '@switchyard/contracts';
import { annotateActiveSpan, inSpan, SpanKind, tracedFetch } from '@switchyard/telemetry';
import { DEFAULT_POLL, pollTask, readSubmission, resolvePollUrl, type PollOptions, type RemoteTask } from './async-call.js';
import { abortable, classifyFailure, ensureOk, readJson, withinAttempt, type AttemptScope } from './attempt.js';
import { DEFAULT_BREAKER, ServiceBreaker, type BreakerOptions, type BreakerState } from './breaker.js';
import { ToolCatalog } from './catalog.js';
import { keyRefusedMessage, ToolUnavailableError } from './errors.js';
import { callOutcome, recordedTool, type ToolCallRecord } from './call-record.js';
import { checkOutput, unwrapRunReply } from './results.js';
import { DEFAULT_RETRY, withRetries, type RetryNotice, type RetryOptions } from './retry.js';
import { streamOnce } from './stream-call.js';

export interface ToolClientOptions {
  /** Name used in errors and logs, e.g. "search". */
  service: string;
  /** Service URL, e.g. http://127.0.0.1:8101 (a path prefix is kept). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; none when absent. */
  apiKey?: string | undefined;
  /** Per-attempt timeout in ms (default 30000). */
  timeoutMs?: number;
  /** Retry policy (defaults: 3 retries, 200 ms doubling to 5 s, with jitter). */
  retry?: Partial<RetryOptions>;
  /** Circuit breaker (defaults: opens after 5 failures in a row, probes after 10 s). */
  breaker?: Partial<BreakerOptions>;
  /** Async polling (defaults: 250 ms growing 1.5× to 5 s; deadline 10 min). */
  poll?: Partial<PollOptions>;
  /** How long a `GET /tools` listing is trusted, in ms (default 60000). */
  discoveryTtlMs?: number;
  /** Check arguments against the published inputSchema before calling (default true). */
  validateInput?: boolean;
  /** Called before each retry, e.g. to log it. */
  onRetry?: (notice: RetryNotice) => void;
  /** Called when a call has ended, however it ended, e.g. to count it (see ToolCallRecord). */
  onCallEnd?: (record: ToolCallRecord) => void;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

export interface ToolCallOptions {
  tool: string;
  args: Record<string, unknown>;
  /** Default 'sync'. */
  mode?: ToolCallMode;
  /** Per-attempt timeout in ms for this call (default the client's). */
  timeoutMs?: number | undefined;
  /** Aborting stops the call within moments, waits and retries included. */
  signal?: AbortSignal | undefined;
  /** Stream mode: each content chunk as it arrives. */
  onChunk?: ((chunk: string) => void) | undefined;
  /** Stream mode: the service's progress events. */
  onProgress?: ((progress: StreamProgress) => void) | undefined;
  /** Stream mode: an attempt broke and the stream starts over; drop the chunks seen so far. */
  onReset?: (() => void) | undefined;
  /** Async mode: the service accepted a task; record it to resume polling after a crash. */
  onTaskAccepted?: ((task: RemoteTask) => void | Promise<void>) | undefined;
  /** Async mode: poll this task instead of starting the work again. */
  resumeTask?: RemoteTask | undefined;
  /** Async mode: overall deadline in ms (default from the client's poll options). */
  deadlineMs?: number | undefined;
  /**
   * Sent as `Idempotency-Key` with every attempt of this call (`POST /run/{tool}`, any mode): the
   * same for the call's retries, and, when the caller derives it from what the call is for, for
   * its takeovers by another process, so a service can do a call's side effect once (default: none).
   */
  idempotencyKey?: string | undefined;
}

export interface HealthResult {
  healthy: boolean;
  latencyMs: number;
  report?: HealthReport | undefined;
  error?: string | undefined;
  /** The service is up but refuses the configured key (401/403 on `GET /tools`). */
  keyRefused?: boolean;
}

export class ToolServiceClient {
  readonly service: string;
  readonly #baseUrl: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #poll: PollOptions;
  readonly #breaker: ServiceBreaker;
  readonly #catalog: ToolCatalog;
  readonly #validateInput: boolean;
  readonly #onRetry: ((notice: RetryNotice) => void) | undefined;
  readonly #onCallEnd: ((record: ToolCallRecord) => void) | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ToolClientOptions) {
    this.service = options.service;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#headers = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#poll = { ...DEFAULT_POLL, ...options.poll };
    this.#breaker = new ServiceBreaker(options.service, { ...DEFAULT_BREAKER, ...options.breaker });
    this.#validateInput = options.validateInput ?? true;
    this.#onRetry = options.onRetry;
    this.#onCallEnd = options.onCallEnd;
    // Every request carries the active span's W3C `traceparent` (none while tracing is off).
    this.#fetch = tracedFetch(options.fetch ?? globalThis.fetch);
    this.#catalog = new ToolCatalog({ service: options.service, ttlMs: options.discoveryTtlMs, load: () => this.#getJson('/tools') });
  }

  get breakerState(): BreakerState {
    return this.#breaker.state;
  }

  onBreakerStateChange(listener: (state: BreakerState) => void): void {
    this.#breaker.onStateChange(listener);
  }

  /** The tools the service publishes (cached; see discoveryTtlMs). */
  listTools(): Promise<ToolDescriptor[]> {
    return this.#catalog.list();
  }

  /**
   * Calls a tool and resolves with its output (for story tools, checked against the seed's shape).
   * The call is a client span (service, tool, mode, last attempt), the parent of the service's own.
   */
  call(options: ToolCallOptions): Promise<unknown> {
    const attributes = { 'switchyard.tool.service': this.service, 'switchyard.tool.name': options.tool, 'switchyard.tool.mode': options.mode ?? 'sync' };
    return inSpan(`${this.service}/${options.tool}`, { kind: SpanKind.CLIENT, attributes }, () => this.#call(options));
  }

  async #call(options: ToolCallOptions): Promise<unknown> {
    const scope: AttemptScope & { tool: string } = { service: this.service, tool: options.tool, timeoutMs: options.timeoutMs ?? this.#timeoutMs, signal: options.signal };
    const started = performance.now();
    let output: unknown;
    try {
      options.signal?.throwIfAborted();
      // The listing is shared by concurrent calls, so one caller's abort stops its wait, not the fetch.
      if (this.#validateInput) await abortable(this.#catalog.checkArguments(options.tool, options.args), options.signal);
      const result = await this.#dispatch(scope, options);
      output = checkOutput(scope, result);
    } catch (error) {
      const failure = classifyFailure(scope, error);
      this.#ended({ options, started, error: failure });
      throw failure;
    }
    this.#ended({ options, started });
    return output;
  }

  #ended(call: { options: ToolCallOptions; started: number; error?: unknown }): void {
    const { options, error } = call;
    this.#onCallEnd?.({ service: this.service, tool: recordedTool(options.tool, error), mode: options.mode ?? 'sync', outcome: callOutcome(error), seconds: (performance.now() - call.started) / 1000 });
  }

  /**
   * `GET /health` with a 5 s timeout, then, when healthy, `GET /tools` with the key: a service
   * that is up but refuses the key is reported as such, naming the configuration. Never throws.
   */
  async health(): Promise<HealthResult> {
    const started = performance.now();
    try {
      const res = await this.#fetch(`${this.#baseUrl}/health`, { headers: this.#headers, signal: AbortSignal.timeout(5000) });
      const body: unknown = await res.json().catch(() => undefined);
      const report = HealthReport.safeParse(body);
      const refused = res.ok ? await this.#keyRefused() : undefined;
      return { healthy: res.ok && !refused, latencyMs: performance.now() - started, report: report.success ? report.data : undefined, error: refused ?? (res.ok ? undefined : `HTTP ${res.status}`), keyRefused: Boolean(refused) };
    } catch (error) {
      return { healthy: false, latencyMs: performance.now() - started, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The refusal of the key by `GET /tools`, as a message, or undefined when the key is taken. */
  async #keyRefused(): Promise<string | undefined> {
    const res = await this.#fetch(`${this.#baseUrl}/tools`, { headers: this.#headers, signal: AbortSignal.timeout(5000) });
    await res.body?.cancel();
    return res.status === 401 || res.status === 403 ? keyRefusedMessage(this.service, res.status) : undefined;
  }

  #dispatch(scope: AttemptScope & { tool: string }, options: ToolCallOptions): Promise<unknown> {
    const url = `${this.#baseUrl}/run/${encodeURIComponent(options.tool)}`;
    const init = { method: 'POST', headers: { ...this.#headers, 'Content-Type': 'application/json', ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}) }, body: JSON.stringify(options.args) };
    switch (options.mode ?? 'sync') {
      case 'sync':
        return this.#guarded(scope, async () => unwrapRunReply(await this.#requestJson(scope, url, init)));
      case 'stream':
        return this.#guarded(scope, (attempt) => {
          if (attempt > 1) options.onReset?.();
          return withinAttempt(scope, (signal) => streamOnce({ scope, url: `${url}?stream=true`, init, signal, fetch: this.#fetch, handlers: options }));
        });
      case 'async':
        return this.#callAsync(scope, { url: `${url}?async=true`, init, options });
    }
  }

  async #callAsync(scope: AttemptScope, call: { url: string; init: RequestInit; options: ToolCallOptions }): Promise<unknown> {
    const deadline = Date.now() + (call.options.deadlineMs ?? this.#poll.deadlineMs);
    let task = call.options.resumeTask;
    if (!task) {
      const submission = await this.#guarded(scope, async () => readSubmission(scope, await this.#requestJson(scope, call.url, call.init)));
      if ('result' in submission) return submission.result;
      task = submission.task;
      await call.options.onTaskAccepted?.(task);
    }
    try {
      return await pollTask({ scope, baseUrl: this.#baseUrl, task, headers: this.#headers, poll: this.#poll, retry: this.#retry, deadline, fetch: this.#fetch });
    } catch (error) {
      if (scope.signal?.aborted) this.#cancelRemoteTask(scope, task);
      throw error;
    }
  }

  /** Best effort: tells the service to stop a task nobody waits for any more. */
  #cancelRemoteTask(scope: AttemptScope, task: RemoteTask): void {
    let url: string;
    try {
      url = resolvePollUrl(scope, this.#baseUrl, task.pollUrl);
    } catch {
      return; // never send anything to a URL we would not poll
    }
    this.#fetch(url, { method: 'DELETE', headers: this.#headers, signal: AbortSignal.timeout(2000) })
      .then((res) => res.body?.cancel())
      .catch(() => undefined);
  }

  /** Retries around the breaker around one attempt; a half-open probe checks /health first. */
  #guarded<T>(scope: AttemptScope, attempt: (n: number) => Promise<T>): Promise<T> {
    return withRetries({
      retry: this.#retry,
      signal: scope.signal,
      onRetry: this.#onRetry,
      run: (n) => {
        if (scope.tool) annotateActiveSpan({ 'switchyard.tool.attempt': n });
        return this.#breaker.execute(async (probe) => {
          if (probe) await this.#requireHealthy(scope);
          return attempt(n);
        }, scope.tool);
      },
    });
  }

  async #requireHealthy(scope: AttemptScope): Promise<void> {
    const health = await this.health();
    if (!health.healthy) {
      throw new ToolUnavailableError({ service: this.service, tool: scope.tool, status: 503, code: 'unhealthy', message: `${this.service} failed its health check: ${health.error ?? 'unhealthy'}` });
    }
  }

  #getJson(path: string): Promise<unknown> {
    const scope: AttemptScope = { service: this.service, timeoutMs: this.#timeoutMs };
    return this.#guarded(scope, () => this.#requestJson(scope, `${this.#baseUrl}${path}`, { headers: this.#headers }));
  }

  /** One attempt: the request, a 2xx status, a JSON body. */
  #requestJson(scope: AttemptScope, url: string, init: RequestInit): Promise<unknown> {
    return withinAttempt(scope, async (signal) => readJson(scope, await ensureOk(scope, await this.#fetch(url, { ...init, signal }))));
  }
}
