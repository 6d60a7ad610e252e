/**
 * The dashboard in the OpenAPI document: its page, and the browser session the key opens. Its
 * static files (`/ui/*`) and Bull Board (`/admin/queues`, behind the key) are no API operations.
 */
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { SessionRequest } from '../dashboard/router.js';
import { BODY_ERRORS, errors } from './common.js';

const PUBLIC = { security: [] };
const SetCookie = z.object({ 'Set-Cookie': z.string().describe('`sy_session=…; Path=/; HttpOnly; SameSite=Strict` (no Max-Age: it lasts the browser session)') });

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
    post: {
      ...PUBLIC,
      operationId: 'openBrowserSession',
      tags: ['dashboard'],
      summary: 'Open a browser session with the API key',
      description:
        'Sets the session cookie, which `/v1` and `/admin/queues` accept in place of the key (a browser cannot put a header on a page navigation or an EventSource). It holds an HMAC of the key, never the key. A request made with the cookie alone that is not GET or HEAD must come from this origin (`Origin`), else 403 `cross_origin`.',
      requestBody: { required: true, content: { 'application/json': { schema: SessionRequest } } },
      responses: {
        '204': { description: 'The session is open', headers: SetCookie },
        ...errors({ v1: false, routeErrors: { ...BODY_ERRORS, 401: 'The key is not valid (`unauthorized`)' } }),
      },
    },
    delete: {
      ...PUBLIC,
      operationId: 'closeBrowserSession',
      tags: ['dashboard'],
      summary: 'End the browser session (clears the cookie)',
      responses: { '204': { description: 'The cookie is cleared', headers: SetCookie } },
    },
  },
};
