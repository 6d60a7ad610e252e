/** What a contention scenario is given and answers (contention.ts runs them; contention-scenarios.ts holds most). */
export interface ContentionSizes {
  /** The other key's batch a single run is started behind. */
  batch: number;
  /** Each of the two keys' batches in the fair-share scenario. */
  shareBatch: number;
  users: number;
  userRuns: number;
  /** Worker slots per queue. */
  concurrency: number;
  /** Each tool call's latency (ms): a call waiting on the network, as in production. */
  toolMs: number;
}

export interface ContentionEnv {
  redisUrl: string;
  sizes: ContentionSizes;
  /** Progress, on stderr. */
  log(line: string): void;
}

/** One scenario: its figures, with a `met` for each target it checks. */
export interface ContentionScenario {
  name: string;
  run(env: ContentionEnv): Promise<Record<string, unknown>>;
}
