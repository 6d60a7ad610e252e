/**
 * Starts the whole stack on this machine as separate processes: the reference tool services
 * (unless all four service URLs are given), the orchestrator, and WORKERS worker processes.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { freePort } from '@switchyard/redis';
import { startService, stopService, waitUntilHealthy, type Child } from './processes.js';

const SERVICES = ['SEARCH', 'OUTLINE', 'WRITING', 'EDITING'] as const;
/** Variables handed through to the children when set, so every documented knob works from here. */
const PASS_THROUGH = /^(QUEUE_PREFIX|RUN_RETENTION_S|WORKER_CONCURRENCY|LOCK_DURATION_MS|STALLED_INTERVAL_MS|SHUTDOWN_GRACE_MS|HOST|\w+_SERVICE_(MODE|TIMEOUT_MS)|\w+_QUEUE_(CONCURRENCY|RATE)|LLM_\w+|FAULT_\w+)$/;

export interface Stack {
  apiUrl: string;
  apiKey: string;
  usingExternalServices: boolean;
  children: Child[];
  stop(): Promise<void>;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startStack(options: { redisUrl: string; env: Record<string, string | undefined>; workers: number; say: (line: string) => void }): Promise<Stack> {
  const { env, say } = options;
  const passed = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => PASS_THROUGH.test(e[0]) && Boolean(e[1])));
  const logLevel = env.LOG_LEVEL || 'warn';
  const apiKey = env.API_KEYS?.split(',')[0]?.trim() || `sy_${randomBytes(16).toString('hex')}`;
  const toolKey = env.TOOL_SERVICE_API_KEY || randomBytes(16).toString('hex');
  const children: Child[] = [];
  const stop = async () => {
    for (const child of [...children].reverse()) await stopService(child);
  };

  try {
    const external = SERVICES.every((s) => env[`${s}_SERVICE_URL`]);
    const serviceUrls: Record<string, string> = {};
    if (external) {
      for (const s of SERVICES) serviceUrls[`${s}_SERVICE_URL`] = env[`${s}_SERVICE_URL`] as string;
    } else {
      const ports = await Promise.all(SERVICES.map(() => freePort()));
      const tools = startService({
        name: 'tool-services',
        entry: 'services/tool-services/src/main.ts',
        env: { ...passed, LOG_LEVEL: logLevel, TOOL_SERVICE_API_KEYS: toolKey, ...Object.fromEntries(SERVICES.map((s, i) => [`${s}_SERVICE_PORT`, String(ports[i])])) },
      });
      children.push(tools);
      SERVICES.forEach((s, i) => (serviceUrls[`${s}_SERVICE_URL`] = `http://127.0.0.1:${ports[i]}`));
      await Promise.all(SERVICES.map((s) => waitUntilHealthy({ url: `${serviceUrls[`${s}_SERVICE_URL`]}/health`, child: tools })));
    }
    for (const s of SERVICES) say(`${s.toLowerCase().padEnd(12)} ${serviceUrls[`${s}_SERVICE_URL`]}${external ? ' (given)' : ''}`);

    const common = { ...passed, REDIS_URL: options.redisUrl, LOG_LEVEL: logLevel, ...serviceUrls, TOOL_SERVICE_API_KEY: external ? (env.TOOL_SERVICE_API_KEY ?? '') : toolKey };
    const port = env.PORT ? Number(env.PORT) : (await portIsFree(8080)) ? 8080 : await freePort();
    const orchestrator = startService({ name: 'orchestrator', entry: 'services/orchestrator/src/main.ts', env: { ...common, PORT: String(port), API_KEYS: env.API_KEYS || apiKey } });
    children.push(orchestrator);
    for (let i = 1; i <= options.workers; i += 1) children.push(startService({ name: `worker-${i}`, entry: 'services/workers/src/main.ts', env: common }));
    const apiUrl = `http://127.0.0.1:${port}`;
    await waitUntilHealthy({ url: `${apiUrl}/health`, child: orchestrator });
    say(`orchestrator ${apiUrl}  (${options.workers} worker process${options.workers === 1 ? '' : 'es'}; logs in .data/logs/)`);
    return { apiUrl, apiKey, usingExternalServices: external, children, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
