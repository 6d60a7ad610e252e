/**
 * The dashboard in the OpenAPI document: its page, and the browser session the key opens. Its
 * static files (`/ui/*`) and Bull Board (`/admin/queues`, behind the key) are no API operations.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { BrowserSessionState, SessionRequest } from '../dashboard/router.js';
import { BODY_ERRORS, errors } from './common.js';

const PUBLIC = { security: [] };
const SetCookie = z.object({ 'Set-Cookie': z.string().describe('`sy_session=…; Path=/; HttpOnly; SameSite=Strict` (no Max-Age: the browser forgets it with the browser session; the server ends the session itself)') });

export const dashboardPaths: ZodOpenApiPathsObject = {
  '/': {
    get: {
      ...PUBLIC,
      operationId: 'getDashboard',
      tags: ['dashboard'],
      summary: 'The run dashboard (an HTML page; it shows nothing until given the key)',
      responses: { '200': { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } } },
    },
  },
  '/ui/session': {
    get: {
      ...PUBLIC,
      operationId: 'getBrowserSession',
      tags: ['dashboard'],
      summary: 'Whether the cookie opens a browser session, and with which scopes',
      description: 'Always 200, so that a page can ask before it has a session without a failed request.',
      responses: { '200': { description: 'The session, if any', content: { 'application/json': { schema: BrowserSessionState } } }, ...errors({ v1: false, routeErrors: { 503: true } }) },
    },
    post: {
      ...PUBLIC,
      operationId: 'openBrowserSession',
      tags: ['dashboard'],
      summary: 'Open a browser session with the API key',
      description:
        'Opens a session (a record on the server) and sets its cookie, which `/v1` and `/admin/queues` accept in place of the key, with the key\'s scopes (a browser cannot put a header on a page navigation or an EventSource). The cookie holds a random token, never the key. The session ends when ended (`DELETE /ui/session`), after `UI_SESSION_IDLE_S` without a request, `UI_SESSION_MAX_S` after it opened, or when its key leaves `API_KEYS`. A request made with the cookie alone that is not GET or HEAD must come from this origin (`Origin`), else 403 `cross_origin`. Wrong keys are counted per client address: past `AUTH_FAILURE_LIMIT` within `AUTH_FAILURE_WINDOW_S`, 429.',
      requestBody: { required: true, content: { 'application/json': { schema: SessionRequest } } },
      responses: {
        '204': { description: 'The session is open', headers: SetCookie },
        ...errors({ v1: false, routeErrors: { ...BODY_ERRORS, 401: 'The key is not valid (`unauthorized`)', 429: true, 503: true } }),
      },
    },
    delete: {
      ...PUBLIC,
      operationId: 'closeBrowserSession',
      tags: ['dashboard'],
      summary: 'End the browser session for good (and clear the cookie)',
      description: 'The session of the cookie sent is ended on the server: the same cookie sent again is refused (401). Needs nothing but the cookie.',
      responses: { '204': { description: 'The session is ended and the cookie cleared', headers: SetCookie }, ...errors({ v1: false, routeErrors: { 503: true } }) },
    },
  },
};
