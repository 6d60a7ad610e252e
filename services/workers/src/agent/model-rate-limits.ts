/**
 * Every model's rate limit, one budget for the whole deployment: the models' own (MODELS'
 * `requests_per_minute` and `tokens_per_minute`, LLM_*_PER_MINUTE for `default`) and the pauses a
 * provider's 429 asks for. The agent queue carries every model's turns (and MCP and pipeline
 * calls), so BullMQ's limiter of the queue cannot hold one model's budget: each model has a hash in
 * Redis, `{sy:model-rate:<name>}`, changed only by one Lua script on Redis's clock, so any number of
 * worker processes (and a cluster, one key a call) agree.
 *
 * - Requests are paced (GCRA with no burst): each takes the next free place, `SPACING` × 60000/rpm
 *   ms after the one before, so no window of any length sees more than its share, whatever the
 *   provider's window is. The margin absorbs the few ms between a place and the request reaching
 *   the provider. A place is reserved when it is taken: a turn that must wait long waits in the
 *   delayed set (holding no worker slot) and comes back to its own place, so waiting turns neither
 *   lose their turn nor all come back at once.
 * - Tokens are charged after each reply (a request's cost is known only then) to a bucket that
 *   holds a minute's tokens; while it is in debt, no request is sent. The turns in flight when it
 *   runs out may pass the limit by their own tokens.
 * - A 429 pauses the model for every worker for its Retry-After (`defaultPauseMs` without one);
 *   turns waiting meanwhile take places after the pause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { ModelRateLimitWait, type ModelCallError, type ModelConfig, type TurnGate } from '@switchyard/models';
import { keyspace } from '@switchyard/redis';

/** Requests are spaced this much wider than the declared rate: 5 % of throughput against requests delayed on their way. */
export const SPACING = 1.05;
/** A waiting turn comes back this long before its place, so that it is on time (it waits the rest in place). */
const PARK_LEAD_MS = 1000;
/** The longest pause a 429 sets (a provider asking for more is still waited for, in steps). */
const MAX_PAUSE_MS = 3_600_000;

const SCRIPT = `
local key = KEYS[1]
local op = ARGV[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', key, 'r', 'p', 't')
local r = tonumber(state[1]) or 0
local p = tonumber(state[2]) or 0
local tk = tonumber(state[3]) or 0
local function keep(last)
  redis.call('PEXPIRE', key, math.floor(math.max(last - now, 0)) + 120000)
end
local function put(field, value)
  redis.call('HSET', key, field, string.format('%.3f', value))
end
if op == 'pause' then
  local untilMs = now + tonumber(ARGV[2])
  if untilMs > p then p = untilMs; put('p', p) end
  keep(math.max(r, p, tk))
  return {math.floor(p - now), 0}
end
if op == 'spend' then
  tk = math.max(tk, now) + tonumber(ARGV[2]) * tonumber(ARGV[3])
  put('t', tk)
  keep(math.max(r, p, tk))
  return {0, 0}
end
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local slot = tonumber(ARGV[4])
if slot and p <= now then
  return {math.floor(math.max(slot - now, 0)), math.floor(slot)}
end
local ready = math.max(now, p)
if window > 0 then ready = math.max(ready, tk - window) end
if interval <= 0 then
  return {math.floor(ready - now), 0}
end
local go = math.max(ready, r)
put('r', go + interval)
keep(go + interval)
return {math.ceil(go - now), math.floor(go)}
`;

export interface ModelRateLimitsOptions {
  /** A connection of the worker's (a Cluster works: each call touches one key). */
  redis: Redis;
  /** The deployment's key prefix (QUEUE_PREFIX). */
  prefix: string;
  /** The longest wait spent in place, holding the turn's worker slot; a longer one is spent in the delayed set. Default 2000. */
  holdMs?: number;
  /** How long a 429 without Retry-After pauses its model. Default 1000. */
  defaultPauseMs?: number;
  /** Told of each 429, by configured model name (the metrics count them). */
  onRateLimited?(model: string): void;
  /** Told when a token charge could not be written (the reply stands). */
  onError?(error: unknown, model: string): void;
}

/** The workers' {@link TurnGate}: every model's budget in Redis. */
export class ModelRateLimits implements TurnGate {
  readonly #options: ModelRateLimitsOptions;
  readonly #keys: ReturnType<typeof keyspace>;
  readonly #holdMs: number;

  constructor(options: ModelRateLimitsOptions) {
    this.#options = options;
    this.#keys = keyspace(options.prefix);
    this.#holdMs = options.holdMs ?? 2000;
  }

  /** The model's hash: a slot of its own, so models spread over a cluster's masters. */
  key(model: string): string {
    return this.#keys.own('model-rate', model);
  }

  async admit(model: ModelConfig, options: { signal: AbortSignal; slot?: number | undefined }): Promise<void> {
    const rpm = model.limits?.requestsPerMinute;
    const interval = rpm ? (60_000 * SPACING) / rpm : 0;
    const window = model.limits?.tokensPerMinute ? 60_000 : 0;
    const [waitMs, slot] = await this.#call(model.name, 'take', interval.toFixed(3), String(window), options.slot === undefined ? '' : String(options.slot));
    if (waitMs <= 0) return;
    if (waitMs > this.#holdMs) throw new ModelRateLimitWait({ model: model.name, waitMs, slot: slot > 0 ? slot : undefined });
    await sleep(waitMs, undefined, { signal: options.signal });
  }

  async spent(model: ModelConfig, tokens: number): Promise<void> {
    const tpm = model.limits?.tokensPerMinute;
    if (!tpm || tokens <= 0) return;
    await this.#call(model.name, 'spend', (60_000 / tpm).toFixed(6), String(tokens)).catch((error: unknown) => this.#options.onError?.(error, model.name));
  }

  async limited(model: ModelConfig, error: ModelCallError): Promise<void> {
    this.#options.onRateLimited?.(model.name);
    const pauseMs = Math.min(error.retryAfterMs ?? this.#options.defaultPauseMs ?? 1000, MAX_PAUSE_MS);
    await this.#call(model.name, 'pause', String(pauseMs));
  }

  /** How long a turn told to wait `waitMs` should stay in the delayed set: it comes back a little early and waits the rest in place. */
  static parkMs(waitMs: number): number {
    return Math.max(0, waitMs - PARK_LEAD_MS);
  }

  async #call(model: string, ...args: string[]): Promise<[number, number]> {
    const reply = (await this.#options.redis.eval(SCRIPT, 1, this.key(model), ...args)) as [number, number];
    return [Number(reply[0]), Number(reply[1])];
  }
}
