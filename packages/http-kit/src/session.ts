/**
 * Browser sessions for pages served beside an API (the orchestrator's dashboard and Bull Board).
 * A browser cannot put a header on a page navigation or an EventSource, so the key is given once,
 * to `POST /ui/session`, which sets a cookie; `apiKeyAuth({ sessionCookie: true })` accepts it.
 *
 * The cookie holds an HMAC of the key, never the key: every replica derives the same token from its
 * configured keys (no session store), a token says nothing of its key, and removing a key from
 * API_KEYS ends its sessions. It is HttpOnly (no script reads it), SameSite=Strict (no other site's
 * request carries it), and has no Max-Age, so it lasts as long as the browser session.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/** The name of the session cookie. */
export const SESSION_COOKIE = 'sy_session';

const CONTEXT = 'switchyard browser session v1';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The token a session of `key` holds. */
export function sessionToken(key: string): string {
  return createHmac('sha256', key).update(CONTEXT).digest('base64url');
}

/** Builds a matcher of session tokens over a fixed set of keys, comparing in constant time. */
export function sessionMatcher(keys: readonly string[]): (token: string | undefined) => boolean {
  const tokens = keys.map((key) => Buffer.from(sessionToken(key)));
  return (token) => {
    if (!token) return false;
    const presented = Buffer.from(token);
    let matched = false;
    for (const known of tokens) matched = (known.length === presented.length && timingSafeEqual(known, presented)) || matched;
    return matched;
  };
}

/** The value of the session cookie a request carries, if any. */
export function presentedSession(req: Pick<Request, 'get'>): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.split('=');
    if (name?.trim() === SESSION_COOKIE) return value.join('=').trim() || undefined;
  }
  return undefined;
}

/**
 * Whether a request carrying only the cookie may change state: a safe method, or an `Origin`
 * naming this very host. Browsers send `Origin` with every request that is not GET or HEAD, so a
 * form or script of another site is refused even where SameSite is not honoured.
 */
export function sameOriginOrSafe(req: Pick<Request, 'get' | 'method'>): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const origin = req.get('origin');
  const host = req.get('host');
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * The `Set-Cookie` value opening a session for `key` (or, with `key` undefined, ending it).
 * @param options.secure adds `Secure`: give true when the request came over HTTPS
 */
export function sessionCookie(key: string | undefined, options: { secure: boolean }): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(options.secure ? ['Secure'] : [])];
  if (key === undefined) return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ');
  return [`${SESSION_COOKIE}=${sessionToken(key)}`, ...attributes].join('; ');
}
