/**
 * The run dashboard: `GET /` answers its page, `/ui/*` its scripts and style (static files of
 * the service's `dashboard/` folder, no build step), `POST /ui/session` turns the API key, given
 * once, into a browser session (a record in Redis, its token in the cookie; see BrowserSessions in
 * http-kit), `GET /ui/session` says whether the cookie opens one, and `DELETE /ui/session` ends it for good. The page and its files hold no data:
 * everything it shows comes from the `/v1` API, which needs the key or the cookie.
 *
 * Wrong keys given to `POST /ui/session` are counted per client address, asking Redis before the
 * key is compared: past the limit the address is answered 429 whatever it sends.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { z } from 'zod';
import { ErrorCodes } from '@switchyard/contracts';
import type { BrowserSessions, FailedKeyLimiter, KeyRing } from '@switchyard/http-kit';
import { clientAddress, HttpError, methodNotAllowed, presentedSession, sessionCookie, tooManyFailedKeys } from '@switchyard/http-kit';
import { jsonBody } from '../json-body.js';

// Outside src/, so that the compiled router (dist/dashboard/router.js) finds the same folder.
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

/** `POST /ui/session`: the key, as a person pastes it. */
export const SessionRequest = z.strictObject({ key: z.string().trim().min(1).max(1024) });

/** `GET /ui/session`: whether the cookie opens a session. */
export const BrowserSessionState = z.object({ open: z.boolean(), scopes: z.array(z.enum(['read', 'run', 'admin'])).optional().describe('The key\'s scopes, when open') });

// The page's scripts come from this server only; nothing inline, no other origin.
const CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export interface DashboardRouterOptions {
  keys: KeyRing;
  sessions: BrowserSessions;
  failedKeys: FailedKeyLimiter;
}

export function dashboardRouter(options: DashboardRouterOptions): Router {
  const router = Router();
  const pageHeaders: express.RequestHandler = (_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache' });
    next();
  };

  router.get('/', pageHeaders, (_req, res) => {
    res.sendFile(path.join(DASHBOARD_DIR, 'index.html'));
  });
  router.use('/ui', pageHeaders, express.static(DASHBOARD_DIR, { index: false, redirect: false, fallthrough: true }));

  router.post('/ui/session', jsonBody('4kb'), async (req, res) => {
    const { key } = SessionRequest.parse(req.body);
    // A valid key is never refused for the wrong keys others sent from its address (see http-kit's apiKeyAuth).
    const identity = options.keys.identify(key);
    if (!identity) {
      const address = clientAddress(req);
      const refused = await options.failedKeys.refusal(address);
      if (refused > 0) throw tooManyFailedKeys(refused);
      const nowRefused = await options.failedKeys.fail(address);
      if (nowRefused > 0) throw tooManyFailedKeys(nowRefused);
      throw new HttpError({ status: 401, code: ErrorCodes.unauthorized, message: 'The API key is not valid', headers: { 'WWW-Authenticate': 'Bearer realm="switchyard"' } });
    }
    const token = await options.sessions.open(identity.digest);
    res.set('Set-Cookie', sessionCookie(token, { secure: req.secure })).status(204).end();
  });
  // Whether the cookie opens a session, always answered 200: the page asks before anything else,
  // so that a browser without a session makes no request that fails.
  router.get('/ui/session', async (req, res) => {
    const token = presentedSession(req);
    const digest = token ? await options.sessions.find(token) : undefined;
    const identity = digest === undefined ? undefined : options.keys.byDigest(digest);
    const state: z.infer<typeof BrowserSessionState> = identity ? { open: true, scopes: [...identity.scopes].sort() } : { open: false };
    res.set('Cache-Control', 'no-store').json(state);
  });
  // Ending the session needs nothing but its cookie: whoever holds it may end it.
  router.delete('/ui/session', async (req, res) => {
    await options.sessions.end(presentedSession(req));
    res.set('Set-Cookie', sessionCookie(undefined, { secure: req.secure })).status(204).end();
  });

  router.all('/', methodNotAllowed('GET'));
  router.all('/ui/session', methodNotAllowed('GET', 'POST', 'DELETE'));
  return router;
}
