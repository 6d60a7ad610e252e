/**
 * Starts the bridge's HTTP endpoint: its Redis connection, queues and suites, the app, a port.
 * `main.ts` uses it with the environment's configuration; tests too.
 */
import { listen } from '@switchyard/http-kit';
import { openBridgeDeps, type BridgeDeps, type BridgeDepsOptions } from '../deps.js';
import { createBridgeMetrics, type BridgeMetrics } from '../metrics.js';
import { createBridgeApp, type BridgeAppOptions, type BridgeApp } from './app.js';

export interface StartBridgeHttpOptions extends BridgeDepsOptions, Omit<BridgeAppOptions, 'tools' | 'redis' | 'prefix' | 'features' | 'metrics'> {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Served at `/metrics` (default: made here; main.ts makes them first to hand the federation's clients their hooks). */
  metrics?: BridgeMetrics;
}

export interface RunningBridge {
  /** Base URL such as `http://127.0.0.1:8090`. */
  url: string;
  /** The MCP endpoint, `{url}/mcp`. */
  mcpUrl: string;
  port: number;
  deps: BridgeDeps;
  app: BridgeApp;
  /** Ends open streams and sessions in memory (their records stay in Redis), stops listening, releases Redis. */
  close(): Promise<void>;
}

export async function startBridgeHttp(options: StartBridgeHttpOptions): Promise<RunningBridge> {
  const metrics = options.metrics ?? createBridgeMetrics();
  const deps = openBridgeDeps({ ...options, runObserver: metrics.runs });
  const app = createBridgeApp({ ...options, tools: deps.tools, features: deps.features, redis: deps.redis, prefix: deps.prefix, metrics });
  metrics.watch({ redis: deps.redis, sessions: app.sessions });
  await deps.ready;
  const listening = await listen(app.app, { port: options.port ?? 0, host: options.host });
  return {
    url: listening.url,
    mcpUrl: `${listening.url}/mcp`,
    port: listening.port,
    deps,
    app,
    async close() {
      await app.sessions.closeAll();
      const closed = listening.close();
      listening.server.closeAllConnections();
      await closed;
      await deps.close();
    },
  };
}
