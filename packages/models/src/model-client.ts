/**
 * One model turn of an agent step: the conversation and the tools go to a configured
 * OpenAI-compatible model through LangChain (streamed, usage asked for); the reply comes back as
 * text and tool calls, inside its bounds. The library's own retries are off: this client retries
 * 429, 5xx, timeouts and broken connections itself, with backoff and jitter or the server's
 * Retry-After, each attempt timed out, every wait and stream cut by the caller's signal.
 */
import { cancelled, retryDelayMs, waitOrCancel, type BackoffOptions } from './backoff.js';
import type { ModelConfig, ModelPrices, ModelProvider, ModelsConfig, ModelsEnv } from './config.js';
import { turnCostUsd } from './cost.js';
import { ModelCallError, toModelCallError, type ModelCallErrorCode } from './errors.js';
import type { streamAttempt as StreamAttempt } from './langchain-turn.js';
import type { ChatMessage, ModelTool, ToolCall } from './messages.js';
import type { TurnGate } from './rate-gate.js';
import { DEFAULT_REPLY_BOUNDS, ReplyReader, type ReplyBounds, type ReplyUsage } from './reply-reader.js';
import type { ResponseFormat } from './structured-output.js';

export interface TurnRequest {
  /** A configured model name (`default`, or a key of MODELS). */
  model: string;
  messages: ChatMessage[];
  tools: ModelTool[];
  /** The reply's most tokens (`max_tokens`), capped by the model's `maxOutputTokens`; default: that cap, else the server's own. */
  maxTokens?: number;
  /**
   * The answer's JSON Schema, sent as `response_format` (json_schema). A server that refuses the
   * request with it (a 400) is asked again without it, and not sent it again by this client.
   */
  responseFormat?: ResponseFormat;
  /** Cancels the turn: the stream is closed and the turn rejects with `model_cancelled` at once. */
  signal: AbortSignal;
  /** Each piece of text as it streams, in order. */
  onToken?(text: string): void;
  /** Before another attempt: text already given to onToken is void (the engine emits a reset). */
  onRetry?(info: { attempt: number; delayMs: number; error: ModelCallError }): void;
  /** The place in the model's rate limit the caller reserved for this turn's first request (see TurnGate). */
  rateSlot?: number | undefined;
}

export interface TurnReply {
  content: string | null;
  toolCalls: ToolCall[];
  usage: ReplyUsage;
  /** Why the reply ended, in OpenAI's words (`stop`, `tool_calls`, `length`, …; an Anthropic `stop_reason` is said so too). */
  finishReason: string | null;
  /** The model id that answered (as the server named it, else the configured id). */
  model: string;
  /** Attempts the turn took (1 when the first answered). */
  attempts: number;
  /** What the turn cost in USD by its model's prices; null when the model has none. */
  costUsd: number | null;
}

/** What a finished turn reports to metrics. `model` is the configured name (a bounded label). */
export interface ModelTurnEvent {
  model: string;
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  outcome: 'ok' | ModelCallErrorCode;
  attempts: number;
}

/** Told of every turn, once, when it ends (ok or not): the workers count tokens and latency by it. */
export interface ModelObserver {
  onTurn(event: ModelTurnEvent): void;
}

export interface ModelClientOptions {
  models: ModelsConfig;
  /** Attempts of one turn on retryable failures (429, 5xx, timeouts, broken connections). Default 4. */
  maxAttempts?: number;
  /** The first retry's backoff before jitter; doubled each time. Default 500 ms. */
  baseBackoffMs?: number;
  /** The longest backoff. Default 10 000 ms. */
  maxBackoffMs?: number;
  /** The longest Retry-After honoured; a server asking for more fails the turn. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** One attempt, request to last chunk. Default 120 000 ms. */
  timeoutMs?: number;
  /**
   * Most ms an attempt's stream may go without a chunk, from the request or from the last chunk
   * (SSE comments and keep-alives are no chunks): a model that stops sending gives its slot back
   * then, and the attempt is retried as a timeout is. Default 30 000 ms (LLM_STREAM_IDLE_MS).
   */
  streamIdleMs?: number;
  /** Bounds of a reply. Default {@link DEFAULT_REPLY_BOUNDS} (256 KiB text, 32 tool calls, 64 KiB arguments each). */
  bounds?: Partial<ReplyBounds>;
  observer?: ModelObserver;
  /** Jitter's randomness (tests seed it). Default Math.random. */
  random?: () => number;
  /**
   * The rate-limit hook (see rate-gate.ts): asked before each request, told of each reply's
   * tokens and of each 429, which then ends the turn instead of being retried here. Default: none.
   */
  gate?: TurnGate;
}

export const DEFAULT_MODEL_CLIENT_OPTIONS = { maxAttempts: 4, baseBackoffMs: 500, maxBackoffMs: 10_000, maxRetryAfterMs: 60_000, timeoutMs: 120_000, streamIdleMs: 30_000 } as const;

/** The client's options from the parsed model variables (LLM_TIMEOUT_MS, LLM_MAX_*). */
export function modelClientOptionsFromEnv(env: ModelsEnv): Omit<ModelClientOptions, 'models'> {
  return {
    maxAttempts: env.LLM_MAX_ATTEMPTS,
    maxRetryAfterMs: env.LLM_MAX_RETRY_AFTER_MS,
    timeoutMs: env.LLM_TIMEOUT_MS,
    streamIdleMs: env.LLM_STREAM_IDLE_MS,
    bounds: { maxContentBytes: env.LLM_MAX_CONTENT_BYTES, maxToolCalls: env.LLM_MAX_TOOL_CALLS, maxArgumentBytes: env.LLM_MAX_ARGUMENT_BYTES },
  };
}

/** LangChain, loaded on the first turn of each provider (see langchain-turn.ts, anthropic-turn.ts). */
const providerTurns = new Map<ModelProvider, Promise<{ streamAttempt: typeof StreamAttempt }>>();

function providerTurn(provider: ModelProvider): Promise<{ streamAttempt: typeof StreamAttempt }> {
  let turn = providerTurns.get(provider);
  if (!turn) {
    turn = provider === 'anthropic' ? import('./anthropic-turn.js') : import('./langchain-turn.js');
    providerTurns.set(provider, turn);
  }
  return turn;
}

/** An attempt's own deadline passed (as opposed to the caller cancelling). */
class AttemptTimedOut extends Error {}
/** An attempt's stream sent no chunk within its idle deadline. */
class AttemptIdle extends Error {}

export class ModelClient {
  private readonly options: Required<Omit<ModelClientOptions, 'observer' | 'bounds' | 'gate'>> & { bounds: ReplyBounds; observer: ModelObserver | undefined; gate: TurnGate | undefined };
  private readonly backoff: BackoffOptions;
  /** Models that refused a request for its `response_format`: asked without it since. */
  private readonly refusesResponseFormat = new Set<string>();

  constructor(options: ModelClientOptions) {
    this.options = { ...DEFAULT_MODEL_CLIENT_OPTIONS, random: Math.random, ...stripUndefined(options), models: options.models, bounds: { ...DEFAULT_REPLY_BOUNDS, ...options.bounds }, observer: options.observer, gate: options.gate };
    this.backoff = { baseBackoffMs: this.options.baseBackoffMs, maxBackoffMs: this.options.maxBackoffMs, maxRetryAfterMs: this.options.maxRetryAfterMs };
  }

  /** A configured model's prices (USD per million tokens), undefined when it has none or is not configured. */
  pricesOf(name: string): ModelPrices | undefined {
    return this.options.models.get(name)?.prices;
  }

  /** The configured model names. */
  names(): string[] {
    return [...this.options.models.keys()];
  }

  async turn(request: TurnRequest): Promise<TurnReply> {
    const started = performance.now();
    const config = this.options.models.get(request.model);
    let attempts = 0;
    const report = (outcome: ModelTurnEvent['outcome'], usage = { promptTokens: 0, completionTokens: 0 }) =>
      this.options.observer?.onTurn({ model: request.model, latencyMs: performance.now() - started, ...usage, outcome, attempts });
    try {
      if (!config) throw new ModelCallError({ code: 'model_unknown', message: `no model named "${request.model}" is configured (configured: ${this.names().join(', ')})` });
      for (;;) {
        attempts += 1;
        const gate = this.options.gate;
        try {
          if (gate) {
            // The provider's client loaded first: a place in the model's budget is for a request sent then, not after an import.
            await providerTurn(config.provider ?? 'openai');
            await gate.admit(config, { signal: request.signal, slot: attempts === 1 ? request.rateSlot : undefined });
          }
          const reply = await this.attemptWithFormat(config, request);
          await gate?.spent(config, reply.usage.promptTokens + reply.usage.completionTokens);
          report('ok', reply.usage);
          return { ...reply, attempts, costUsd: config.prices ? turnCostUsd(config.prices, reply.usage) : null };
        } catch (error) {
          const failure = toModelCallError(error, { model: request.model });
          // With a gate, a 429 pauses the model for every caller and the turn waits in its caller, not here.
          if (gate && failure.code === 'model_rate_limited') {
            if (failure.status === 429) await gate.limited(config, failure);
            throw failure;
          }
          if (!failure.retryable || attempts >= this.options.maxAttempts) throw failure;
          const delayMs = retryDelayMs(failure, attempts, this.backoff, this.options.random);
          request.onRetry?.({ attempt: attempts, delayMs, error: failure });
          await waitOrCancel(delayMs, request.signal, request.model);
        }
      }
    } catch (error) {
      const failure = toModelCallError(error, { model: request.model });
      report(failure.code);
      throw failure;
    }
  }

  /** The attempt with the turn's response_format; a 400 to it is an attempt without it (the engine checks the answer anyway). */
  private async attemptWithFormat(config: ModelConfig, request: TurnRequest): Promise<Omit<TurnReply, 'attempts' | 'costUsd'>> {
    const maxTokens = capped(request.maxTokens, config.maxOutputTokens);
    const plain = { ...request, maxTokens, responseFormat: undefined };
    if (!request.responseFormat || this.refusesResponseFormat.has(config.name)) return this.attempt(config, plain);
    try {
      return await this.attempt(config, { ...request, maxTokens });
    } catch (error) {
      const failure = toModelCallError(error, { model: request.model });
      if (failure.code !== 'model_refused' || failure.status !== 400) throw failure;
      this.refusesResponseFormat.add(config.name);
      return this.attempt(config, plain);
    }
  }

  /** One request, streamed, read into its bounds; rejects at once when the signal fires. */
  private async attempt(config: ModelConfig, request: TurnRequest): Promise<Omit<TurnReply, 'attempts' | 'costUsd'>> {
    if (request.signal.aborted) throw cancelled(request.model, request.signal);
    const controller = new AbortController();
    let stopWaiting = (_error: Error) => {};
    const stopped = new Promise<never>((_resolve, reject) => (stopWaiting = reject));
    const onAbort = () => {
      controller.abort(request.signal.reason);
      stopWaiting(cancelled(request.model, request.signal));
    };
    request.signal.addEventListener('abort', onAbort, { once: true });
    const timedOut = (cause?: unknown) => new ModelCallError({ code: 'model_unavailable', message: `model ${request.model}: no whole reply within ${this.options.timeoutMs} ms`, cause });
    const timer = setTimeout(() => {
      controller.abort(new AttemptTimedOut());
      stopWaiting(timedOut());
    }, this.options.timeoutMs);
    // No chunk for streamIdleMs (from the request, then from each chunk): the model has stopped sending.
    // Armed as the request is sent (LangChain is loaded first, on a process's first turn).
    const idleMs = this.options.streamIdleMs;
    const idled = (cause?: unknown) => new ModelCallError({ code: 'model_unavailable', message: `model ${request.model}: its stream sent nothing for ${idleMs} ms (LLM_STREAM_IDLE_MS)`, cause });
    const onIdle = () => {
      controller.abort(new AttemptIdle());
      stopWaiting(idled());
    };
    let idle: NodeJS.Timeout | undefined;
    const onChunk = () => {
      clearTimeout(idle);
      idle = setTimeout(onIdle, idleMs);
    };
    try {
      // The stream is raced with the signal and the deadlines: a stalled read must not hold the turn.
      return await Promise.race([this.read(config, request, controller.signal, onChunk), stopped]);
    } catch (error) {
      if (request.signal.aborted) throw cancelled(request.model, request.signal);
      if (controller.signal.reason instanceof AttemptTimedOut) throw timedOut(error);
      if (controller.signal.reason instanceof AttemptIdle) throw idled(error);
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(idle);
      request.signal.removeEventListener('abort', onAbort);
      // Closes the connection whatever ended the attempt (a bound passed, an error, or the end).
      controller.abort();
      stopped.catch(() => {});
    }
  }

  private async read(config: ModelConfig, request: TurnRequest, signal: AbortSignal, onChunk: () => void): Promise<Omit<TurnReply, 'attempts' | 'costUsd'>> {
    const { streamAttempt } = await providerTurn(config.provider ?? 'openai');
    const reader = new ReplyReader(this.options.bounds, request.model);
    // No text is handed on once the attempt is over (cancelled or timed out): the turn has already answered.
    const onToken = request.onToken && ((text: string) => signal.aborted || request.onToken?.(text));
    onChunk();
    await streamAttempt({ config, messages: request.messages, tools: request.tools, maxTokens: request.maxTokens, responseFormat: request.responseFormat, signal, reader, onToken, onChunk });
    const reply = reader.finish();
    return { content: reply.content, toolCalls: reply.toolCalls, usage: reply.usage, finishReason: reply.finishReason, model: reply.model ?? config.model };
  }
}

function capped(asked: number | undefined, cap: number | undefined): number | undefined {
  if (asked === undefined) return cap;
  return cap === undefined ? asked : Math.min(asked, cap);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
