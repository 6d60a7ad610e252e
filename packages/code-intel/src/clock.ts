/** Time as the index and the CKB cooldown see it; tests pass a clock they move by hand. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
