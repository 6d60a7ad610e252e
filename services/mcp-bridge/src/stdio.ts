/**
 * The bridge over stdio, for a local agent that starts it as a child process: one MCP connection
 * on stdin/stdout, logs on stderr. Same Redis and key prefix as the orchestrator and workers.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@switchyard/logger';
import { closeExpressionSandbox, configureExpressionSandbox } from '@switchyard/pipeline';
import { resolveRedis } from '@switchyard/redis';
import { startTracing } from '@switchyard/telemetry';
import { memorySession } from '@switchyard/tool-suite';
import { openBridgeDeps } from './deps.js';
import { loadEnv } from './env.js';
import { configuredSuites } from './configured-suites.js';
import { createBridgeServer } from './server.js';
import { STDIO_KEY_ID } from './flow-caller.js';
import { BoundedStdioTransport } from './stdio-transport.js';
import { RedisTaskStore, taskLeases } from './tasks/redis-task-store.js';

const config = loadEnv();
const logger = createLogger({ name: 'mcp-bridge', level: config.logLevel, stream: 'stderr' });
const tracing = await startTracing({ service: 'mcp-bridge', config: config.telemetry });
await configureExpressionSandbox(config.expressions);
const redis = await resolveRedis({ url: config.redisUrl });
const configured = await configuredSuites(config, logger);
const deps = openBridgeDeps({ redisUrl: redis.url, prefix: config.prefix, retentionSeconds: config.retentionSeconds, aceflowRoot: config.aceflowRoot, supervisorRoot: config.supervisorRoot, extraSuites: configured.suites, resourcePageSize: config.resourcePageSize, conformanceFixtures: config.conformanceFixtures, toolServices: config.toolServices, limits: config.limits });
// Each stdio connection is a session of its own, for its tasks as for its state.
const sessionId = `stdio-${randomUUID()}`;
const leases = taskLeases({ redis: deps.redis });
const tasks = new RedisTaskStore({ redis: deps.redis, prefix: deps.prefix, sessionId, leases });
// Its runs are held by a key of their own (STDIO_KEY_ID) under the bound of live runs per key.
const server = createBridgeServer({ tools: deps.tools, sessionId, session: memorySession(), logger, tasks, features: deps.features, keyId: STDIO_KEY_ID });

let stopping = false;
async function stop(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ reason }, 'stopping');
  await leases.close();
  await server.close().catch(() => undefined);
  await deps.close();
  await configured.close();
  await closeExpressionSandbox();
  await tracing.shutdown();
  await redis.stop();
  process.exit(0);
}

// The client ends the connection by closing our stdin (the MCP stdio shutdown).
const closed = server.onclose;
server.onclose = () => {
  closed?.();
  void stop('connection closed');
};
process.stdin.once('end', () => void stop('stdin closed'));
process.once('SIGTERM', () => void stop('SIGTERM'));
process.once('SIGINT', () => void stop('SIGINT'));

// The first tools/list then has every pipeline's tool, as over HTTP.
await deps.ready;
await server.connect(new BoundedStdioTransport());
logger.info({ redis: redis.url, prefix: config.prefix, tools: deps.tools.size }, 'mcp-bridge on stdio');
