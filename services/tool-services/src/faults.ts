/**
 * Fault knobs for tests and demos, all off by default. The object is live: a test may change a
 * knob on a running service and the next request sees it.
 */
export interface FaultKnobs {
  /** Milliseconds added before each tool run. Default 0. */
  latencyMs: number;
  /** Share of `POST /run` requests that fail, 0–1. Default 0. */
  failureRate: number;
  /** Status the injected failures use: 500, 503, or 429 (rate limited). Default 503. */
  failureStatus: 500 | 503 | 429;
  /** The next N `POST /run` requests fail regardless of the rate (deterministic). Default 0. */
  failNext: number;
  /** `Retry-After` seconds sent with injected 503s and 429s; 0 sends none. Default 0. */
  retryAfterSeconds: number;
  /** A stream is cut (socket destroyed, no `done`) after this many `content` events. Default: never. */
  streamCutAfterChunks: number | null;
  /** How many streams are cut before the knob stops cutting; null cuts every one. Default null. */
  streamCutsLeft: number | null;
  /** Share of streams cut at random, 0–1, each after 1–5 chunks (or `streamCutAfterChunks` when set). Default 0. */
  streamCutRate: number;
  /** Milliseconds between streamed chunks. Default 0. */
  chunkDelayMs: number;
  /**
   * A stream's chunks are spread evenly over this many milliseconds: the author's text is produced
   * first, then chunk k of n is sent at (k+1)/n of it. Simulates a model that streams for that long
   * (with the offline author). Default 0: chunks go as the author gives them.
   */
  streamMs: number;
  /** An async task takes at least this many milliseconds before its work runs. Default 0. */
  taskMs: number;
  /** An async task answers `processing` for at least this many polls. Default 0. */
  asyncPollsNeeded: number;
  /** `/health` answers 503 unhealthy. Default false. */
  unhealthy: boolean;
}

export function defaultFaults(overrides: Partial<FaultKnobs> = {}): FaultKnobs {
  return {
    latencyMs: 0,
    failureRate: 0,
    failureStatus: 503,
    failNext: 0,
    retryAfterSeconds: 0,
    streamCutAfterChunks: null,
    streamCutsLeft: null,
    streamCutRate: 0,
    chunkDelayMs: 0,
    streamMs: 0,
    taskMs: 0,
    asyncPollsNeeded: 0,
    unhealthy: false,
    ...overrides,
  };
}

/** Decides whether this request fails, consuming one `failNext` when it does. */
export function shouldInjectFailure(faults: FaultKnobs, random: () => number = Math.random): boolean {
  if (faults.failNext > 0) {
    faults.failNext -= 1;
    return true;
  }
  return faults.failureRate > 0 && random() < faults.failureRate;
}

/**
 * After how many chunks this stream is cut, or null when it runs to its end. A cut counted by
 * `streamCutsLeft` is taken here, when the stream starts: streams that start together must not
 * all be cut on the last one left (and count it below zero, cutting for ever after).
 */
export function streamCutPoint(faults: FaultKnobs, random: () => number = Math.random): number | null {
  if (faults.streamCutsLeft !== null && faults.streamCutsLeft <= 0) return null;
  const cutAfter = faults.streamCutRate > 0 ? (random() < faults.streamCutRate ? (faults.streamCutAfterChunks ?? 1 + Math.floor(random() * 5)) : null) : faults.streamCutAfterChunks;
  if (cutAfter !== null && faults.streamCutsLeft !== null) faults.streamCutsLeft -= 1;
  return cutAfter;
}
