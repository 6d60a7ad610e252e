/** Names the realistic baseline's driver and its worker processes share: queues, keys, job data. */

/** The hand-written flow's own queues, one per step class. */
export const BASELINE_REALISTIC_QUEUES = { search: 'bl-search', outline: 'bl-outline', write: 'bl-write', polish: 'bl-polish' } as const;

/** What the first flow's jobs carry: the story's id, topic and style. */
export interface BaselineStory {
  story: string;
  topic: string;
  style: string;
}

export function baselineKeys(prefix: string) {
  return {
    /** The story's stream of chunks, then its `done`: what a client follows. */
    events: (story: string) => `${prefix}:story:${story}:events`,
    /** Stories finished, counted by the polish jobs. */
    done: `${prefix}:stories-done`,
  };
}
