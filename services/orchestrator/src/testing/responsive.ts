/**
 * Whether a service still answers while an attack runs: `/health` is asked every 25 ms from the
 * attack's start to its end, and the slowest answer is reported with the attack's own outcome.
 */
export interface Responsiveness<T> {
  outcome: T;
  /** Milliseconds the attack took. */
  elapsedMs: number;
  /** `/health` answers received meanwhile, and the slowest of them in ms. */
  healthChecks: number;
  slowestHealthMs: number;
}

export async function whileAnswering<T>(healthUrl: string, attack: () => Promise<T>): Promise<Responsiveness<T>> {
  let running = true;
  let checks = 0;
  let slowest = 0;
  const poll = (async () => {
    while (running) {
      const asked = performance.now();
      // Degraded (503) is an answer too: what matters is that the process answers.
      await fetch(healthUrl).then((res) => res.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - asked);
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const started = performance.now();
  let outcome: T;
  try {
    outcome = await attack();
  } finally {
    running = false;
    await poll;
  }
  return { outcome, elapsedMs: performance.now() - started, healthChecks: checks, slowestHealthMs: slowest };
}
