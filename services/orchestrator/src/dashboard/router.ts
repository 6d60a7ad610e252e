/**
 * The run dashboard: `GET /` answers its page, `/ui/*` its scripts and style (static files of
 * the service's `dashboard/` folder, no build step), and `POST /ui/session` turns the API key, given once, into the
 * browser session's cookie (see `sessionCookie` in http-kit). The page and its files hold no data:
 * everything it shows comes from the `/v1` API, which needs the key or the cookie.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { z } from 'zod';
import { ErrorCodes } from '@switchyard/contracts';
import { HttpError, keyMatcher, methodNotAllowed, sessionCookie } from '@switchyard/http-kit';
import { jsonBody } from '../json-body.js';

// Outside src/, so that the compiled router (dist/dashboard/router.js) finds the same folder.
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));

/** `POST /ui/session`: the key, as a person pastes it. */
export const SessionRequest = z.strictObject({ key: z.string().trim().min(1).max(1024) });

// The page's scripts come from this server only; nothing inline, no other origin.
const CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export function dashboardRouter(options: { apiKeys: readonly string[] }): Router {
  const router = Router();
  const matches = keyMatcher(options.apiKeys);
  const pageHeaders: express.RequestHandler = (_req, res, next) => {
    res.set({ 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-cache' });
    next();
  };

  router.get('/', pageHeaders, (_req, res) => {
    res.sendFile(path.join(DASHBOARD_DIR, 'index.html'));
  });
  router.use('/ui', pageHeaders, express.static(DASHBOARD_DIR, { index: false, redirect: false, fallthrough: true }));

  router.post('/ui/session', jsonBody('4kb'), (req, res) => {
    const { key } = SessionRequest.parse(req.body);
    if (!matches(key)) throw new HttpError({ status: 401, code: ErrorCodes.unauthorized, message: 'The API key is not valid', headers: { 'WWW-Authenticate': 'Bearer realm="switchyard"' } });
    res.set('Set-Cookie', sessionCookie(key, { secure: req.secure })).status(204).end();
  });
  router.delete('/ui/session', (req, res) => {
    res.set('Set-Cookie', sessionCookie(undefined, { secure: req.secure })).status(204).end();
  });

  router.all('/', methodNotAllowed('GET'));
  router.all('/ui/session', methodNotAllowed('POST', 'DELETE'));
  return router;
}
