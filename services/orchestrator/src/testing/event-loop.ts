/**
 * What an attack costs a server that runs in the test's own process: the longest the event loop
 * was held while it ran, and the slowest `GET /health` answered meanwhile (asked again and again,
 * one at a time, until the attack has been answered).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface AttackCost<T> {
  result: T;
  /** The longest the event loop was held, in ms (its delay past the monitor's 10 ms resolution). */
  loopBlockedMs: number;
  /** The slowest `/health` while the attack ran, in ms, and how many were answered. */
  slowestHealthMs: number;
  healthChecks: number;
}

export async function measureAttack<T>(baseUrl: string, attack: () => Promise<T>): Promise<AttackCost<T>> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let done = false;
  let slowest = 0;
  let checks = 0;
  const health = (async () => {
    do {
      const started = performance.now();
      await (await fetch(`${baseUrl}/health`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      checks += 1;
    } while (!done);
  })();
  try {
    const result = await attack();
    done = true;
    await health;
    return { result, loopBlockedMs: Math.max(0, loop.max / 1e6 - 10), slowestHealthMs: slowest, healthChecks: checks };
  } finally {
    done = true;
    await health.catch(() => undefined);
    loop.disable();
  }
}
