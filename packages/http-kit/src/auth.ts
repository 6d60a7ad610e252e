/**
 * API-key auth for every HTTP service: the key comes in `X-API-Key` or `Authorization: Bearer`.
 * Keys are compared by their SHA-256 digests in constant time, so response timing says nothing
 * about how much of a guess was right.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ErrorCodes } from '@switchyard/contracts';
import { HttpError } from './errors.js';
import { presentedSession, sameOriginOrSafe, sessionMatcher, sessionToken } from './session.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The key a request presents, from `X-API-Key` or a Bearer token; undefined when none. */
export function presentedKey(req: Pick<Request, 'get'>): string | undefined {
  const header = req.get('x-api-key');
  if (header) return header.trim();
  const auth = req.get('authorization');
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return match?.[1]?.trim();
}

/**
 * A short stable name of a key (16 hex digits of an HMAC of it), to count what each key holds
 * (its open streams, its sessions) without keeping, logging or labelling the key itself.
 */
export function keyId(key: string): string {
  return createHmac('sha256', 'switchyard key id v1').update(key).digest('hex').slice(0, 16);
}

/** The keyId of the key that `apiKeyAuth` accepted for this request (from `res.locals.keyId`); undefined before it. */
export function requestKeyId(res: Pick<Response, 'locals'>): string | undefined {
  const id: unknown = res.locals.keyId;
  return typeof id === 'string' ? id : undefined;
}

/** Builds a matcher over a fixed set of keys. */
export function keyMatcher(keys: readonly string[]): (candidate: string | undefined) => boolean {
  const digests = keys.map(digest);
  return (candidate) => {
    if (!candidate) return false;
    const presented = digest(candidate);
    let matched = false;
    for (const known of digests) matched = timingSafeEqual(known, presented) || matched;
    return matched;
  };
}

/**
 * Rejects requests without a valid key with 401 and `WWW-Authenticate: Bearer`; an accepted
 * request carries its key's `keyId` in `res.locals.keyId` (read it with `requestKeyId`).
 * @param options.keys accepted keys; must not be empty (leave the middleware out to disable auth)
 * @param options.realm realm named in the challenge (default "switchyard")
 * @param options.sessionCookie also accept a browser session's cookie (see session.ts) when no
 *   key is presented; a request so authenticated that changes state must come from this origin
 *   (403 `cross_origin` otherwise). Default false.
 */
export function apiKeyAuth(options: { keys: readonly string[]; realm?: string; sessionCookie?: boolean }): RequestHandler {
  if (options.keys.length === 0) throw new Error('apiKeyAuth needs at least one key');
  const matches = keyMatcher(options.keys);
  const matchesSession = sessionMatcher(options.keys);
  const challenge = `Bearer realm="${options.realm ?? 'switchyard'}"`;
  const sessionKeyIds = new Map(options.keys.map((key) => [sessionToken(key), keyId(key)]));
  return (req, res, next) => {
    const key = presentedKey(req);
    if (key && matches(key)) {
      res.locals.keyId = keyId(key);
      return next();
    }
    const session = presentedSession(req);
    if (!key && options.sessionCookie && matchesSession(session)) {
      res.locals.keyId = sessionKeyIds.get(session ?? '');
      if (sameOriginOrSafe(req)) return next();
      return next(new HttpError({ status: 403, code: 'cross_origin', message: 'A request made with the session cookie that changes state must come from this origin' }));
    }
    next(new HttpError({
      status: 401,
      code: ErrorCodes.unauthorized,
      message: key ? 'The API key is not valid' : 'An API key is required (X-API-Key or Authorization: Bearer)',
      headers: { 'WWW-Authenticate': challenge },
    }));
  };
}
