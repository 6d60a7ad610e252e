/**
 * `GET /metrics` in the Prometheus text format: a handler for an Express app (its req and res are
 * Node's), and a small server of its own for processes that have no HTTP port (the workers).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Answers the registry's metrics; a collector that fails answers 500 with its message. */
export function metricsHandler(registry: Registry) {
  return async (_req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const text = await registry.metrics();
      res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
      res.end(text);
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  };
}

export interface MetricsServerOptions {
  registry: Registry;
  port: number;
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** What `GET /health` answers (default: 200 `{"status":"healthy"}`). */
  health?: () => Promise<{ healthy: boolean; body: unknown }>;
  /** Kubernetes' probes, served at `GET /livez` and `GET /readyz` (default: not served; see http-kit's `createProbes`). */
  probes?: { live(): { healthy: boolean; body: unknown }; ready(): Promise<{ healthy: boolean; body: unknown }> };
}

export interface MetricsServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** The check a path answers with, if it is one: `/health`, or a probe when probes are given. */
function checkOf(path: string | undefined, options: MetricsServerOptions): Promise<{ healthy: boolean; body: unknown }> | undefined {
  if (path === '/health') return options.health ? options.health() : Promise.resolve({ healthy: true, body: { status: 'healthy' } });
  if (path === '/livez' && options.probes) return Promise.resolve(options.probes.live());
  if (path === '/readyz' && options.probes) return options.probes.ready();
  return undefined;
}

/** Serves `GET /metrics`, `GET /health` and the probes on a port of their own; anything else is 404. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const metrics = metricsHandler(options.registry);
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: { code: 'method_not_allowed', message: 'Only GET is served here', details: {} } });
    if (path === '/metrics') return void metrics(req, res);
    const check = checkOf(path, options);
    if (check) {
      return void check.then(
        (report) => json(res, report.healthy ? 200 : 503, report.body),
        (error: unknown) => json(res, 503, { status: 'degraded', error: error instanceof Error ? error.message : String(error) }),
      );
    }
    json(res, 404, { error: { code: 'not_found', message: `No route ${path}`, details: {} } });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
