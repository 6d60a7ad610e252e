/**
 * Starts the whole stack on this machine as separate processes: the reference tool services
 * (unless all four service URLs are given), the orchestrator, WORKERS worker processes (each
 * serving `/metrics` on a free port of its own, printed), and when serving the MCP bridge, and
 * waits until each is ready. Without API_KEYS every one of them takes the local key
 * (`.data/api-key`), so a service started beside the stack takes it too.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { taggedPrefix } from '@switchyard/config';
import { localApiKey } from '@switchyard/http-kit';
import { freePort, REPO_ROOT } from '@switchyard/redis';
import { choosePort } from './ports.js';
import { passedThrough } from './service-env.js';
import { startService, waitUntilHealthy, type Children } from './processes.js';
import type { Runtime } from './runtime.js';
import { waitForWorkers } from './workers-ready.js';

const SERVICES = ['SEARCH', 'OUTLINE', 'WRITING', 'EDITING'] as const;

export interface Stack {
  apiUrl: string;
  apiKey: string;
  /** The file of the local key, when the launcher made (or kept) the key it calls with; absent for a key of API_KEYS. */
  localKeyFile?: string;
  /** Each worker process's `/metrics` (on a METRICS_PORT of its own), in the order of their names. */
  workerMetricsUrls: string[];
  /** True when the four *_SERVICE_URL variables were given and no reference service was started. */
  external: boolean;
  /** The MCP bridge's Streamable HTTP endpoint, when it was started (`mcp`). */
  mcpUrl?: string;
}


export async function startStack(options: {
  redisUrl: string;
  env: Record<string, string | undefined>;
  workers: number;
  port: number | undefined;
  children: Children;
  say: (line: string) => void;
  /** Run the services' sources through tsx, or their compiled JavaScript (default tsx). */
  runtime?: Runtime;
  /** Start the MCP bridge too, on MCP_PORT or 8090 (default false: a batch needs no bridge). */
  mcp?: boolean;
  /** The key of API_KEYS the launcher calls the API with (launcherKey); default: the local key. */
  apiKey?: string | undefined;
}): Promise<Stack> {
  const { env, say, children } = options;
  const runtime = options.runtime ?? 'tsx';
  const passed = passedThrough(env);
  const logLevel = env.LOG_LEVEL || 'warn';
  // The local key, made on the first launch without API_KEYS (readable by its owner only).
  const local = options.apiKey === undefined ? localApiKey(path.join(REPO_ROOT, '.data')) : undefined;
  const apiKey = options.apiKey ?? (local?.key as string);
  const external = SERVICES.every((s) => env[`${s}_SERVICE_URL`]);

  const serviceUrls: Record<string, string> = {};
  let toolKey = env.TOOL_SERVICE_API_KEY ?? '';
  if (external) {
    for (const s of SERVICES) serviceUrls[`${s}_SERVICE_URL`] = env[`${s}_SERVICE_URL`] as string;
  } else {
    // The reference services are this launch's own: they get a key of their own unless one is given.
    toolKey ||= randomBytes(16).toString('hex');
    const [modelPort, ...ports] = await Promise.all([freePort(), ...SERVICES.map(() => freePort())]);
    const tools = children.add(
      startService({
        name: 'tool-services',
        entry: 'services/tool-services/src/main.ts',
        runtime,
        tier: 0,
        env: {
          ...passed,
          LOG_LEVEL: logLevel,
          TOOL_SERVICE_API_KEYS: toolKey,
          MODEL_SERVICE_PORT: String(modelPort),
          ...Object.fromEntries(SERVICES.map((s, i) => [`${s}_SERVICE_PORT`, String(ports[i])])),
        },
      }),
    );
    SERVICES.forEach((s, i) => (serviceUrls[`${s}_SERVICE_URL`] = `http://127.0.0.1:${ports[i]}`));
    // The offline OpenAI-compatible model of the reference services: its base URL, `/v1` included.
    serviceUrls.MODEL_SERVICE_URL = `http://127.0.0.1:${modelPort}/v1`;
    await Promise.all([
      ...SERVICES.map((s) => waitUntilHealthy({ url: `${serviceUrls[`${s}_SERVICE_URL`]}/health`, child: tools })),
      waitUntilHealthy({ url: `http://127.0.0.1:${modelPort}/health`, child: tools }),
    ]);
  }
  for (const s of SERVICES) say(`${s.toLowerCase().padEnd(12)} ${serviceUrls[`${s}_SERVICE_URL`]}${external ? '  (given)' : ''}`);
  if (serviceUrls.MODEL_SERVICE_URL) say(`model        ${serviceUrls.MODEL_SERVICE_URL}  (offline, OpenAI-compatible)`);

  const common: Record<string, string> = { ...passed, REDIS_URL: options.redisUrl, LOG_LEVEL: logLevel, ...serviceUrls, ...(toolKey ? { TOOL_SERVICE_API_KEY: toolKey } : {}) };
  const { port, note } = await choosePort(options.port);
  if (note) say(note);
  const orchestrator = children.add(
    startService({ name: 'orchestrator', entry: 'services/orchestrator/src/main.ts', runtime, tier: 1, env: { ...common, PORT: String(port), API_KEYS: env.API_KEYS || apiKey } }),
  );
  // Each worker process serves its metrics on a port of its own, kept when it is started again.
  const metricsPorts = await Promise.all(Array.from({ length: options.workers }, () => freePort()));
  // The system is built to survive a lost worker: one that dies is started again, not the end of the stack.
  const workers = Array.from({ length: options.workers }, (_, i) =>
    children.addRestartable({
      start: (restarted) => startService({ name: `worker-${i + 1}`, entry: 'services/workers/src/main.ts', runtime, tier: 1, env: { ...common, METRICS_PORT: String(metricsPorts[i]) }, appendLog: restarted }),
      onRestart: ({ dead, code, signal, delayMs }) => options.say(`${dead.name} stopped on its own (${code ?? signal}); starting it again in ${(delayMs / 1000).toFixed(1)} s (log: .data/logs/${dead.name}.log)`),
    }),
  );
  const apiUrl = `http://127.0.0.1:${port}`;
  const [, ready] = await Promise.all([
    waitUntilHealthy({ url: `${apiUrl}/health`, child: orchestrator }),
    waitForWorkers({ redisUrl: options.redisUrl, prefix: taggedPrefix(env.QUEUE_PREFIX || 'sy'), workers }),
  ]);
  say(`orchestrator ${apiUrl}`);
  say(`workers      ${options.workers} process${options.workers === 1 ? '' : 'es'}${ready.note ? ` (${ready.note})` : ', listening on every queue'}`);
  const workerMetricsUrls = metricsPorts.map((p) => `http://127.0.0.1:${p}/metrics`);
  say(`metrics      ${apiUrl}/metrics, workers ${workerMetricsUrls.join(' ')}${external ? '' : ', tool services <url>/metrics'}`);
  const mcpUrl = options.mcp ? await startBridge({ env: { ...common, API_KEYS: env.API_KEYS || apiKey }, wanted: mcpPort(env.MCP_PORT), children, say, runtime }) : undefined;
  say(`logs         .data/logs/<name>.log: ${children.all.map((c) => c.name).join(', ')}`);
  return { apiUrl, apiKey, workerMetricsUrls, external, ...(local ? { localKeyFile: local.file } : {}), ...(mcpUrl ? { mcpUrl } : {}) };
}

/** MCP_PORT as a port, or undefined when unset; anything else stops the launch with its name. */
export function mcpPort(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`MCP_PORT must be a port (1-65535), not ${JSON.stringify(value)}`);
  return port;
}

/** The MCP bridge on the stack's Redis, key and tool services; answers its `/mcp` URL once healthy. */
async function startBridge(options: { env: Record<string, string>; wanted: number | undefined; children: Children; say: (line: string) => void; runtime: Runtime }): Promise<string> {
  const { port, note } = await choosePort(options.wanted, { fallback: 8090, what: 'the MCP bridge' });
  if (note) options.say(note);
  const bridge = options.children.add(startService({ name: 'mcp-bridge', entry: 'services/mcp-bridge/src/main.ts', runtime: options.runtime, tier: 1, env: { ...options.env, PORT: String(port) } }));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilHealthy({ url: `${url}/health`, child: bridge });
  options.say(`mcp bridge   ${url}/mcp   (Streamable HTTP, the same API key)`);
  return `${url}/mcp`;
}
