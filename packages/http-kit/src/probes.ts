/**
 * Kubernetes' two questions, asked of every service: `GET /livez`, is the process alive (it
 * answers: its event loop turns), and `GET /readyz`, may it be sent work (it reaches Redis, it
 * serves, and it is not draining). Liveness never looks at Redis: an outage every pod shares must
 * not get them all restarted; readiness does, so traffic leaves a pod that cannot serve it.
 */
import { Router } from 'express';
import type { Redis } from 'ioredis';
import { checkRedis } from '@switchyard/redis';
import { methodNotAllowed } from './errors.js';

/** What a probe answers: 200 with `body` when `healthy`, else 503. */
export interface ProbeAnswer {
  healthy: boolean;
  body: Record<string, unknown>;
}

export interface Probes {
  /** Alive: always, while the process answers. */
  live(): ProbeAnswer;
  /** Ready: serving, not draining, and Redis answers a PING within half a second. */
  ready(): Promise<ProbeAnswer>;
  /** From now on not ready (on SIGTERM): no new work is routed here while the current work ends. */
  drain(): void;
  readonly draining: boolean;
}

export interface ProbesOptions {
  /** The connection the service's work goes through. */
  redis: Redis;
  /** False until the service takes work (a worker before its queues listen). Default: always true. */
  serving?: () => boolean;
}

export function createProbes(options: ProbesOptions): Probes {
  let draining = false;
  const pid = process.pid;
  return {
    live: () => ({ healthy: true, body: { status: 'alive', pid } }),
    async ready() {
      if (draining) return { healthy: false, body: { status: 'draining', pid } };
      if (options.serving && !options.serving()) return { healthy: false, body: { status: 'starting', pid } };
      const redis = await checkRedis(options.redis);
      return { healthy: redis.healthy, body: { status: redis.healthy ? 'ready' : 'degraded', redis, pid } };
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
  };
}

/** `GET /livez` and `GET /readyz` on an Express app; other methods answer 405 naming GET. */
export function probesRouter(probes: Probes): Router {
  const router = Router();
  router.get('/livez', (_req, res) => {
    const answer = probes.live();
    res.status(answer.healthy ? 200 : 503).json(answer.body);
  });
  router.get('/readyz', async (_req, res) => {
    const answer = await probes.ready();
    res.status(answer.healthy ? 200 : 503).json(answer.body);
  });
  router.all('/livez', methodNotAllowed('GET'));
  router.all('/readyz', methodNotAllowed('GET'));
  return router;
}
