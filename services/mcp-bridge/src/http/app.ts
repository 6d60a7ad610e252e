/**
 * The bridge's Express app: Streamable HTTP at `/mcp` with sessions (POST messages, GET the
 * server's stream or resume one with Last-Event-ID, DELETE to end the session), behind the Origin
 * check and the bearer key; `/health` and `/metrics` (Prometheus), both public; and, when an authorization server is configured, the OAuth
 * protected-resource metadata (RFC 9728).
 */
import express, { type ErrorRequestHandler, type Express, type Request } from 'express';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import type { ApiKeyEntry } from '@switchyard/config';
import { errorMiddleware, FailedKeyLimiter, HttpError, jsonBody, KeyRing, notFoundHandler, presentedKey, principalOf, unavailableGuard, type FailedKeyLimiterOptions } from '@switchyard/http-kit';
import { metricsHandler } from '@switchyard/metrics';
import { checkRedis, redisUnavailable } from '@switchyard/redis';
import { traceRequests } from '@switchyard/telemetry';
import type { Logger } from '@switchyard/logger';
import type { BridgeFeatures } from '../features.js';
import type { BridgeMetrics } from '../metrics.js';
import type { ToolRegistry } from '../registry.js';
import { forward } from './forward.js';
import { bearerAuth, originGuard } from './guards.js';
import { LiveSessions } from './live-sessions.js';
import { keyDigest, SessionRecords } from './session-records.js';
import { MAX_MCP_MESSAGE_BYTES } from '../message-limits.js';

export interface BridgeAppOptions {
  tools: ToolRegistry;
  /** Resources, prompts, completions and logging for every session (default: tools only). */
  features?: BridgeFeatures;
  redis: Redis;
  /** The deployment's key prefix; sessions live under `{prefix}:mcp:`. */
  prefix: string;
  /** Accepted keys: plain keys have every scope, parsed API_KEYS entries their own (which tools a session sees). */
  apiKeys: readonly (string | ApiKeyEntry)[];
  /** Wrong keys allowed per client address and window (defaults: 10 a minute). */
  failedKeys?: Pick<FailedKeyLimiterOptions, 'limit' | 'windowMs'>;
  /** Browser origins allowed (default none: only requests without an Origin). */
  allowedOrigins?: readonly string[];
  logger: Logger;
  /** Idle seconds before a session is forgotten (default one day). */
  sessionTtlSeconds?: number;
  /** Seconds a stream stays replayable after its last event (default 3600). */
  eventTtlSeconds?: number;
  /** Reconnection delay suggested to clients, ms (default 1000). */
  retryIntervalMs?: number;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  keepAliveMs?: number;
  /** How long a task stays working once its bridge stops renewing it, in ms (default 15 s). */
  taskLeaseMs?: number;
  /** Serve protected-resource metadata naming these authorization servers (default: none served). */
  authorizationServers?: readonly string[];
  /** The bridge's public base URL, for the metadata (default: from the request's Host). */
  publicUrl?: string | undefined;
  /** Served at `/metrics`, and told of sessions and tasks (default: no such route). */
  metrics?: BridgeMetrics | undefined;
}

export interface BridgeApp {
  app: Express;
  sessions: LiveSessions;
  records: SessionRecords;
}

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** A body that is not JSON is the protocol's parse error, not the services' error shape. */
const parseErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') res.status(400).json(jsonRpcError(-32700, 'Parse error: the body is not JSON'));
  else if (type === 'entity.too.large') res.status(413).json(jsonRpcError(-32000, `The body is larger than ${MAX_MCP_MESSAGE_BYTES} bytes, the most this bridge reads in one message`));
  else if (error instanceof HttpError && error.status === 400) res.status(400).json(jsonRpcError(-32600, `Invalid request: ${error.message}`));
  else next(error);
};

export function createBridgeApp(options: BridgeAppOptions): BridgeApp {
  const records = new SessionRecords({ redis: options.redis, prefix: options.prefix, ttlSeconds: options.sessionTtlSeconds });
  const sessions = new LiveSessions({
    tools: options.tools,
    features: options.features,
    records,
    redis: options.redis,
    prefix: options.prefix,
    logger: options.logger,
    eventTtlSeconds: options.eventTtlSeconds,
    retryIntervalMs: options.retryIntervalMs,
    keepAliveMs: options.keepAliveMs,
    taskLeaseMs: options.taskLeaseMs,
    taskObserver: options.metrics?.tasks,
  });
  const baseUrl = (req: Request) => options.publicUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const oauth = options.authorizationServers && options.authorizationServers.length > 0 ? options.authorizationServers : undefined;

  const app = express();
  app.disable('x-powered-by');
  // First, so that an MCP request's span is the root of the runs its tool calls start.
  app.use(traceRequests());
  app.get('/health', async (_req, res) => {
    const redis = await checkRedis(options.redis);
    res.status(redis.healthy ? 200 : 503).json({ status: redis.healthy ? 'healthy' : 'degraded', redis, sessions: sessions.size, tools: options.tools.size });
  });
  if (options.metrics) app.get('/metrics', metricsHandler(options.metrics.registry));
  if (oauth) {
    const metadata = (req: Request) => ({ resource: `${baseUrl(req)}/mcp`, authorization_servers: oauth, bearer_methods_supported: ['header'], resource_name: 'Switchyard MCP bridge' });
    app.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'], (req, res) => void res.json(metadata(req)));
  }

  app.use('/mcp', originGuard(options.allowedOrigins ?? []));
  const failedKeys = new FailedKeyLimiter({ redis: options.redis, prefix: options.prefix, ...options.failedKeys, onError: (error) => options.logger.warn({ err: error }, 'a wrong key could not be counted') });
  app.use('/mcp', bearerAuth({ keys: new KeyRing(options.apiKeys), failedKeys, ...(oauth ? { resourceMetadataUrl: (req: Request) => `${baseUrl(req)}/.well-known/oauth-protected-resource/mcp` } : {}) }));
  // Sessions, their events and tasks live in Redis: while it is unreachable /mcp answers 503 within a second.
  app.use('/mcp', unavailableGuard({ unavailable: () => redisUnavailable(options.redis) }));
  app.use('/mcp', jsonBody({ limit: `${MAX_MCP_MESSAGE_BYTES}b` }), parseErrors);
  app.all('/mcp', async (req, res) => {
    const token = presentedKey(req) as string; // the auth guard let the request through
    const digest = keyDigest(token);
    const scopes = principalOf(req)?.scopes ?? new Set();
    const body: unknown = req.body;
    const messages = Array.isArray(body) ? (body as unknown[]) : [body];
    if (req.method === 'POST' && messages.some((message) => isInitializeRequest(message))) {
      const initialize = messages.find((message) => isInitializeRequest(message)) as { params: Record<string, unknown> };
      const session = await sessions.open(initialize.params, digest, scopes);
      options.metrics?.sessionOpened();
      await forward(session.transport, req, res, { parsedBody: body, token });
      return;
    }
    const sessionId = req.get('mcp-session-id');
    if (!sessionId) {
      res.status(400).json(jsonRpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      return;
    }
    const session = await sessions.find(sessionId, digest, scopes);
    if (!session) {
      res.status(404).json(jsonRpcError(-32001, 'Session not found'));
      return;
    }
    session.active += 1;
    session.lastSeen = Date.now();
    void records.touch(sessionId).catch((error: unknown) => options.logger.warn({ err: error, session: sessionId }, 'could not refresh the session'));
    try {
      await forward(session.transport, req, res, { parsedBody: req.method === 'POST' ? body : undefined, token });
    } finally {
      session.active -= 1;
      session.lastSeen = Date.now();
    }
  });
  app.use(notFoundHandler);
  app.use(errorMiddleware(options.logger));
  return { app, sessions, records };
}
