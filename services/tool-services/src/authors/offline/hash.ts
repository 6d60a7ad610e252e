/**
 * Seeded pseudo-randomness. The offline author must give byte-identical output for the same
 * input, so every "random" choice is drawn from a generator seeded by a hash of that input.
 */

/** 32-bit FNV-1a: tiny, stable across Node versions, and good enough to spread seeds. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both ends included. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  shuffle<T>(items: readonly T[]): T[];
}

/**
 * mulberry32 over an FNV-1a seed. The parts are joined with a separator that cannot occur in
 * JSON strings' meaning, so ("ab","c") and ("a","bc") seed differently.
 */
export function createRng(...parts: readonly string[]): Rng {
  let state = fnv1a(JSON.stringify(parts));
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    between,
    pick<T>(items: readonly T[]): T {
      // An empty list is a bug in the phrase tables, not a runtime condition to paper over.
      if (items.length === 0) throw new Error('pick() from an empty list');
      return items[between(0, items.length - 1)] as T;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i -= 1) {
        const j = between(0, i);
        [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
      }
      return copy;
    },
  };
}
