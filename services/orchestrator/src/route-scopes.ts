/**
 * What each route of the API needs, in one table: `public` (no key), or the scope a key (or the
 * browser session's key) must hold. The OpenAPI document states it per operation from this table,
 * and a test walks every operation of the document and checks it against real requests, so a
 * route cannot be added without its line here (see scopes.int.test.ts).
 *
 * Bull Board (`/admin/queues`) is an Express app of its own and is guarded by method: its reads
 * (GET, HEAD) need `read`, anything else (retry, clean, pause, obliterate…) `admin`.
 */
import { Router, type RequestHandler } from 'express';
import type { Scope } from '@switchyard/config';
import { requireScope } from '@switchyard/http-kit';

export type RouteAccess = Scope | 'public';

/** `method path` (lower-case method, OpenAPI path) → what the route needs. */
export const ROUTE_SCOPES = {
  'get /': 'public',
  'get /ui/session': 'public',
  'post /ui/session': 'public',
  'delete /ui/session': 'public',
  'get /health': 'public',
  'get /livez': 'public',
  'get /readyz': 'public',
  'get /metrics': 'public',
  'get /openapi.json': 'public',
  'get /docs': 'public',
  'get /schemas/pipeline.json': 'public',
  'get /v1/runs': 'read',
  'get /v1/runs/{runId}': 'read',
  'get /v1/runs/{runId}/events': 'read',
  'get /v1/batches': 'read',
  'get /v1/batches/{batchId}': 'read',
  'get /v1/batches/{batchId}/events': 'read',
  'get /v1/pipelines': 'read',
  'get /v1/pipelines/{name}': 'read',
  'get /v1/schedules': 'read',
  'get /v1/schedules/{name}': 'read',
  'get /v1/inbox': 'read',
  'get /v1/runs/{runId}/approvals/{callId}': 'read',
  'post /v1/stories': 'run',
  'post /v1/aceflow/runs': 'run',
  'post /v1/batches': 'run',
  'post /v1/pipelines/{name}/runs': 'run',
  'delete /v1/runs/{runId}': 'run',
  'post /v1/runs/{runId}/approvals/{callId}': 'run',
  'post /v1/runs/{runId}/signals/{name}': 'run',
  'delete /v1/pipelines/{name}': 'admin',
  'delete /v1/pipelines/{name}/versions/{version}': 'admin',
  'put /v1/pipelines/{name}': 'admin',
  'put /v1/schedules/{name}': 'admin',
  'post /v1/schedules/{name}/pause': 'admin',
  'post /v1/schedules/{name}/resume': 'admin',
  'delete /v1/schedules/{name}': 'admin',
} as const satisfies Record<string, RouteAccess>;

/** What `method path` needs; undefined for a route the table does not know. */
export function routeAccess(method: string, path: string): RouteAccess | undefined {
  return (ROUTE_SCOPES as Record<string, RouteAccess>)[`${method.toLowerCase()} ${path}`];
}

/** What a request to Bull Board needs, by its method. */
export function queueBoardScope(method: string): Scope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'admin';
}

type RouterMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/**
 * One middleware that refuses, with 403 `insufficient_scope`, a request to a route of the table
 * whose principal lacks its scope. It routes with Express itself (the same path matching, case
 * and trailing-slash rules as the routes it guards), inside one function, so that a walk of the
 * app's routes does not see these as routes of their own. Mount it after the key check.
 */
export function scopeGuard(): RequestHandler {
  const router = Router();
  for (const [operation, access] of Object.entries(ROUTE_SCOPES) as [string, RouteAccess][]) {
    if (access === 'public') continue;
    const [method = '', path = ''] = operation.split(' ');
    router[method as RouterMethod](path.replace(/\{(\w+)\}/g, ':$1'), requireScope(access));
  }
  return (req, res, next) => router(req, res, next);
}

/** Bull Board's guard: `read` for its pages and reads, `admin` for any write. */
export const queueBoardGuard: RequestHandler = (req, res, next) => requireScope(queueBoardScope(req.method))(req, res, next);
