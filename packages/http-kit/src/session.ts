/**
 * Browser sessions for pages served beside an API (the orchestrator's dashboard and Bull Board).
 * A browser cannot put a header on a page navigation or an EventSource, so the key is given once,
 * to `POST /ui/session`, which opens a session (a record in Redis, see browser-sessions.ts) and
 * sets a cookie holding its random token; `apiKeyAuth({ sessions })` accepts it.
 *
 * The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's request carries
 * it), and has no Max-Age, so the browser forgets it with the browser session; the server ends
 * the session itself (logout, idle or absolute expiry, the key removed).
 */
import type { Request } from 'express';

/** The name of the session cookie. */
export const SESSION_COOKIE = 'sy_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
 * The `Set-Cookie` value holding a session's `token` (or, with `token` undefined, clearing it).
 * @param options.secure adds `Secure`: give true when the request came over HTTPS
 */
export function sessionCookie(token: string | undefined, options: { secure: boolean }): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(options.secure ? ['Secure'] : [])];
  if (token === undefined) return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ');
  return [`${SESSION_COOKIE}=${token}`, ...attributes].join('; ');
}
