/**
 * The rate-limit hook around a model turn. A client given a {@link TurnGate} asks it before every
 * request of a turn (a budget shared by every worker may make the request wait, or send the turn
 * elsewhere to wait), tells it the tokens each reply spent, and on a 429 tells it instead of
 * retrying by itself: the gate pauses the model for every caller, and the turn rejects with the
 * 429 so that its caller waits without spending an attempt. The workers' gate keeps its budget in
 * Redis; without a gate the client retries 429s itself, as any OpenAI client does.
 */
import type { ModelConfig } from './config.js';
import { ModelCallError } from './errors.js';

export interface TurnGate {
  /**
   * Resolves when the model may be sent a request (at once, or after a short wait); rejects with
   * {@link ModelRateLimitWait} when the wait is long enough to be spent elsewhere.
   * @param slot a place in the model's budget the caller reserved earlier (from a ModelRateLimitWait), for the turn's first request
   */
  admit(model: ModelConfig, options: { signal: AbortSignal; slot?: number | undefined }): Promise<void>;
  /** The tokens (prompt and completion) a reply spent. */
  spent(model: ModelConfig, tokens: number): Promise<void>;
  /** The model answered 429 (its Retry-After in `error.retryAfterMs`): pause it for every caller. */
  limited(model: ModelConfig, error: ModelCallError): Promise<void>;
}

/**
 * The model's shared budget has no room for this turn's request for a while: nothing was sent.
 * The caller waits `waitMs` (without holding anything) and asks again with `slot`, the place the
 * gate reserved for it, when there is one.
 */
export class ModelRateLimitWait extends ModelCallError {
  override name = 'ModelRateLimitWait';
  readonly waitMs: number;
  readonly slot: number | undefined;
  constructor(fields: { model: string; waitMs: number; slot?: number | undefined }) {
    super({ code: 'model_rate_limited', message: `model ${fields.model}: its rate limit has no room for ${fields.waitMs} ms` });
    this.waitMs = fields.waitMs;
    this.slot = fields.slot;
  }
}
