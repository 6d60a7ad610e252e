/**
 * API-key auth for every HTTP service: the key comes in `X-API-Key` or `Authorization: Bearer`
 * (or, where a service serves pages, as a browser session's cookie). The request's principal (its
 * key's digest and scopes) is recorded for the scope checks after it (key-ring.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import type { ApiKeyEntry } from '@switchyard/config';
import { ErrorCodes } from '@switchyard/contracts';
import type { BrowserSessions } from './browser-sessions.js';
import { clientAddress } from './client-address.js';
import { HttpError } from './errors.js';
import { retryAfterSeconds, type FailedKeyLimiter } from './failed-keys.js';
import { AuthErrorCodes, keyDigest, KeyRing, setPrincipal, type Principal } from './key-ring.js';
import { presentedSession, sameOriginOrSafe } from './session.js';

/** The key a request presents, from `X-API-Key` or a Bearer token; undefined when none. */
export function presentedKey(req: Pick<Request, 'get'>): string | undefined {
  const header = req.get('x-api-key');
  if (header) return header.trim();
  const auth = req.get('authorization');
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return match?.[1]?.trim();
}

/**
 * A short stable name of a key (the first 16 hex digits of its digest), to count what each key
 * holds (its open streams, its sessions) without keeping, logging or labelling the key itself.
 */
export function keyId(key: string): string {
  return keyDigest(key).slice(0, 16);
}

/** The keyId of the key (or session) `apiKeyAuth` accepted for this request; undefined before it. */
export function requestKeyId(res: Pick<Response, 'locals'>): string | undefined {
  const id: unknown = res.locals.keyId;
  return typeof id === 'string' ? id : undefined;
}

/** Builds a matcher over a fixed set of keys (every key compared in constant time). */
export function keyMatcher(keys: readonly string[]): (candidate: string | undefined) => boolean {
  const ring = new KeyRing(keys);
  return (candidate) => ring.identify(candidate) !== undefined;
}

/** The 429 of an address refused for its wrong keys. */
export function tooManyFailedKeys(ms: number): HttpError {
  const seconds = retryAfterSeconds(ms);
  return new HttpError({
    status: 429,
    code: AuthErrorCodes.tooManyFailedKeys,
    message: `Too many wrong API keys from this address; try again in ${seconds} s`,
    details: { retry_after_s: Number(seconds) },
    headers: { 'Retry-After': seconds },
  });
}

export interface ApiKeyAuthOptions {
  /** Accepted keys (plain keys have every scope); must not be empty (leave the middleware out to disable auth). */
  keys: KeyRing | readonly (string | ApiKeyEntry)[];
  /** Realm named in the challenge (default "switchyard"). */
  realm?: string;
  /**
   * Also accept a browser session's cookie when no key is presented, looked up here; a request so
   * authenticated that changes state must come from this origin (403 `cross_origin` otherwise).
   * Default: no sessions.
   */
  sessions?: BrowserSessions;
  /** Counts wrong keys per client address and refuses the wrong keys of an address over its limit with 429, never a valid key (default: not counted). */
  failedKeys?: FailedKeyLimiter;
}

/**
 * Rejects requests without a valid key (or session) with 401 and `WWW-Authenticate: Bearer`, and
 * records the principal of those it lets through (and its key's `keyId` in `res.locals.keyId`).
 */
export function apiKeyAuth(options: ApiKeyAuthOptions): RequestHandler {
  const ring = options.keys instanceof KeyRing ? options.keys : new KeyRing(options.keys);
  if (ring.size === 0) throw new Error('apiKeyAuth needs at least one key');
  const challenge = `Bearer realm="${options.realm ?? 'switchyard'}"`;
  const unauthorized = (key: string | undefined) =>
    new HttpError({
      status: 401,
      code: ErrorCodes.unauthorized,
      message: key ? 'The API key is not valid' : 'An API key is required (X-API-Key or Authorization: Bearer)',
      headers: { 'WWW-Authenticate': challenge },
    });
  const accept = (req: Request, res: Response, principal: Principal, next: (error?: unknown) => void) => {
    setPrincipal(req, principal);
    res.locals.keyId = principal.digest.slice(0, 16);
    next();
  };

  return (req, res, next) => {
    const key = presentedKey(req);
    if (key) {
      // A valid key is never refused for the wrong keys others sent from its address (a proxy's,
      // a NAT's): the limit caps what guessing costs, and a 256-bit key is not guessed.
      const identity = ring.identify(key);
      if (identity) return accept(req, res, { ...identity, via: 'key' }, next);
      if (!options.failedKeys) return next(unauthorized(key));
      const address = clientAddress(req);
      const refused = options.failedKeys.knownRefusal(address);
      if (refused > 0) return next(tooManyFailedKeys(refused));
      void options.failedKeys.fail(address).then((ms) => next(ms > 0 ? tooManyFailedKeys(ms) : unauthorized(key)));
      return;
    }
    const token = options.sessions ? presentedSession(req) : undefined;
    if (!options.sessions || !token) return next(unauthorized(undefined));
    const sessions = options.sessions;
    sessions
      .find(token)
      .then(async (digest) => {
        const identity = digest === undefined ? undefined : ring.byDigest(digest);
        // A session whose key was removed from the configuration ends here, for good.
        if (digest !== undefined && !identity) await sessions.end(token);
        if (!identity) return next(unauthorized(undefined));
        if (!sameOriginOrSafe(req)) return next(new HttpError({ status: 403, code: 'cross_origin', message: 'A request made with the session cookie that changes state must come from this origin' }));
        accept(req, res, { ...identity, via: 'session' }, next);
      })
      .catch(next);
  };
}
