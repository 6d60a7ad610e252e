/**
 * The routes an Express 5 app serves, read from its router stack, written as OpenAPI paths
 * (`/v1/runs/{runId}`), so a test can compare them with the OpenAPI document.
 */
import type { Express } from 'express';

/**
 * What the walk reads of a layer of Express 5's router (the `router` package, 2.x). The published
 * types still describe Express 4's layers (`regexp`, `keys`), hence this description of its own.
 */
interface RouterLayer {
  /** The path given to `use()` or `route()`. */
  rawPath?: unknown;
  /** `use()` at `/`. */
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  handle: { stack?: RouterLayer[] };
}

export interface RegisteredRoute {
  /** Lower case, as in an OpenAPI path item: `get`, `post`… */
  method: string;
  path: string;
}

function openApiPath(path: unknown): string {
  if (typeof path !== 'string' || /[*?()[\]]|\{/.test(path)) throw new Error(`a route path this walk cannot write as an OpenAPI path: ${String(path)}`);
  return path.replace(/:(\w+)/g, '{$1}');
}

/**
 * Every method and path the app routes. Handlers for any method (`router.all`, which answer 405
 * here) are left out: they are no operation. Middleware that is no route (static files) is too.
 */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  const found: RegisteredRoute[] = [];
  const walk = (layers: readonly RouterLayer[], prefix: string) => {
    for (const layer of layers) {
      if (layer.route) {
        const path = prefix + openApiPath(layer.route.path);
        for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') found.push({ method, path });
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, layer.slash ? prefix : prefix + openApiPath(layer.rawPath));
      }
    }
  };
  walk(app.router.stack as unknown as RouterLayer[], '');
  return found;
}
