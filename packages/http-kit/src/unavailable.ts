/**
 * Answers 503 when a dependency the routes need (Redis) is unreachable, instead of letting the
 * request wait for the whole outage: at once when it is known to be down, and after `timeoutMs`
 * when it went away while the request was waiting on it. A request that is merely slow, with the
 * dependency up, is left alone, and so is a stream that has started (its headers are sent).
 */
import type { RequestHandler } from 'express';
import { errorBody } from './errors.js';

export interface UnavailableGuardOptions {
  /** Why the dependency cannot serve now, or null when it can. */
  unavailable: () => string | null;
  /** The error code answered (default 'redis_unavailable'). */
  code?: string;
  /** How long a request may wait while the dependency is down (default 500 ms, so the 503 is out within a second even on a busy machine). */
  timeoutMs?: number;
  /** Seconds a client is told to wait before trying again (default 1). */
  retryAfterSeconds?: number;
}

export function unavailableGuard(options: UnavailableGuardOptions): RequestHandler {
  const code = options.code ?? 'redis_unavailable';
  const retryAfter = String(options.retryAfterSeconds ?? 1);
  const refuse = (res: Parameters<RequestHandler>[1], reason: string) => {
    res.set('Retry-After', retryAfter).status(503).json(errorBody(code, `The service cannot answer now: ${reason}`, { reason, retry_after_s: Number(retryAfter) }));
  };
  return (_req, res, next) => {
    const reason = options.unavailable();
    if (reason) return refuse(res, reason);
    const timer = setTimeout(() => {
      const late = options.unavailable();
      if (late && !res.headersSent) refuse(res, late);
    }, options.timeoutMs ?? 500);
    timer.unref();
    res.on('close', () => clearTimeout(timer));
    next();
  };
}
