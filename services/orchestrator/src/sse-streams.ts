/**
 * The SSE streams one orchestrator process holds open, and the caps on them. A stream costs a
 * socket, a place among the stream hub's followers and the memory of what it has not yet sent, so
 * each API key, and all keys together, may hold only so many at once. A stream past a cap is
 * refused before its 200: 429 past its key's cap, 503 past the process's, both with Retry-After.
 */
import type { Response } from 'express';
import { HttpError } from '@switchyard/http-kit';

export interface SseLimits {
  /** Streams open at once in this process, every key together (default 1000); one more answers 503 `sse_capacity`. */
  maxStreams?: number;
  /** Streams open at once per API key in this process (default 200); one more answers 429 `too_many_streams`. */
  maxStreamsPerKey?: number;
}

export const DEFAULT_SSE_LIMITS: Required<SseLimits> = { maxStreams: 1000, maxStreamsPerKey: 200 };

/** What a refused client is told to wait, in seconds: streams end as their runs do, so a slot frees up soon. */
export const SSE_RETRY_AFTER_S = 5;

/** The key id of requests that carry none (no auth in front of the route): they share one cap. */
const NO_KEY = '-';

export class SseStreams {
  readonly #open = new Set<Response>();
  readonly #perKey = new Map<string, number>();
  readonly #limits: Required<SseLimits>;

  constructor(limits: SseLimits = {}) {
    this.#limits = { ...DEFAULT_SSE_LIMITS, ...limits };
  }

  /** Clients connected now. */
  get size(): number {
    return this.#open.size;
  }

  /** Streams of this key open now. */
  heldBy(keyId: string | undefined): number {
    return this.#perKey.get(keyId ?? NO_KEY) ?? 0;
  }

  /**
   * Counts `res` as a stream of `keyId` until it closes (answered, refused later, or left by its
   * client), or throws the refusal when a cap is reached: nothing has been sent then.
   */
  admit(keyId: string | undefined, res: Response): void {
    const key = keyId ?? NO_KEY;
    const held = this.#perKey.get(key) ?? 0;
    const { maxStreams, maxStreamsPerKey } = this.#limits;
    if (held >= maxStreamsPerKey) throw refusal(429, 'too_many_streams', `This API key holds ${held} event streams, the most one key may hold open at once; close one, or try again later`, maxStreamsPerKey);
    if (this.#open.size >= maxStreams) throw refusal(503, 'sse_capacity', `This server holds ${this.#open.size} event streams, the most it serves at once; try again later`, maxStreams);
    this.#open.add(res);
    this.#perKey.set(key, held + 1);
    res.once('close', () => {
      this.#open.delete(res);
      const left = (this.#perKey.get(key) ?? 1) - 1;
      if (left > 0) this.#perKey.set(key, left);
      else this.#perKey.delete(key);
    });
  }

  /** Ends every open stream (a shutdown). */
  endAll(): void {
    for (const res of this.#open) res.end();
  }
}

function refusal(status: 429 | 503, code: string, message: string, limit: number): HttpError {
  return new HttpError({ status, code, message, details: { limit, retry_after_s: SSE_RETRY_AFTER_S }, headers: { 'Retry-After': String(SSE_RETRY_AFTER_S) } });
}
