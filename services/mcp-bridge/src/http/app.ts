/**
 * The bridge's Express app: Streamable HTTP at `/mcp` with sessions (POST messages, GET the
 * server's stream or resume one with Last-Event-ID, DELETE to end the session), behind the Origin
 * check and the bearer key; `/health`, the probes (`/livez`, `/readyz`) and `/metrics` (Prometheus), all public; and, when an authorization server is configured, the OAuth
 * protected-resource metadata (RFC 9728).
 */
import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Redis } from 'ioredis';
import type { ApiKeyEntry } from '@switchyard/config';
import { createProbes, errorMiddleware, FailedKeyLimiter, HttpError, jsonBody, keyId, KeyRing, notFoundHandler, presentedKey, principalOf, probesRouter, unavailableGuard, type FailedKeyPolicy, type Probes } from '@switchyard/http-kit';
import { metricsHandler } from '@switchyard/metrics';
import { checkRedis, redisUnavailable } from '@switchyard/redis';
import { traceRequests } from '@switchyard/telemetry';
import type { Logger } from '@switchyard/logger';
import type { BridgeFeatures } from '../features.js';
import type { BridgeMetrics } from '../metrics.js';
import type { ToolRegistry } from '../registry.js';
import { forward } from './forward.js';
import { bearerAuth, originGuard } from './guards.js';
import { boundInitialize, InitializeTooLargeError } from './initialize-bounds.js';
import { LiveSessions } from './live-sessions.js';
import { keyDigest, SessionRecords } from './session-records.js';
import { SessionQuota, type Admission, type SessionLimits } from './session-quota.js';
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
  /** Wrong keys allowed per client address and window (defaults: 10 a minute), and the proxies trusted to name the client (default none). */
  failedKeys?: FailedKeyPolicy;
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
  /** Caps on sessions held at once (defaults: 1000 in all, 100 per API key). */
  sessionLimits?: SessionLimits;
  /** Bytes of initialize params a session keeps, its clientInfo's text fields cut to 256 characters first (default 16384); more is refused with 413. */
  maxInitializeBytes?: number;
}

export interface BridgeApp {
  app: Express;
  sessions: LiveSessions;
  records: SessionRecords;
  quota: SessionQuota;
  /** `/livez` and `/readyz`; drained on SIGTERM. */
  probes: Probes;
}

type RequestId = string | number | null;
const jsonRpcError = (code: number, message: string, id: RequestId = null, data?: Record<string, unknown>) => ({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id });

/** A new session past a cap: 429 past its key's, 503 past the deployment's, with when a place frees up at the latest. */
function refuseSession(res: Response, refused: Exclude<Admission, { admitted: true }>, id: RequestId): void {
  const whose = refused.scope === 'key' ? 'This API key holds' : 'This deployment holds';
  const message = `${whose} ${refused.held} MCP sessions, the most it may hold at once; end one (DELETE /mcp with its Mcp-Session-Id), or try again after ${refused.retryAfterSeconds} s, when the oldest lapses`;
  res
    .status(refused.scope === 'key' ? 429 : 503)
    .set('Retry-After', String(refused.retryAfterSeconds))
    .json(jsonRpcError(-32000, message, id, { limit: refused.limit, retry_after_s: refused.retryAfterSeconds }));
}

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
  const quota = new SessionQuota({ redis: options.redis, prefix: options.prefix, ttlSeconds: options.sessionTtlSeconds, limits: options.sessionLimits });
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
  // Whose address wrong keys are counted under (clientAddress reads req.ip).
  app.set('trust proxy', options.failedKeys?.trustProxy ?? false);
  // First, so that an MCP request's span is the root of the runs its tool calls start.
  app.use(traceRequests());
  app.get('/health', async (_req, res) => {
    const redis = await checkRedis(options.redis);
    res.status(redis.healthy ? 200 : 503).json({ status: redis.healthy ? 'healthy' : 'degraded', redis, sessions: sessions.size, tools: options.tools.size });
  });
  const probes = createProbes({ redis: options.redis });
  app.use(probesRouter(probes));
  if (options.metrics) app.get('/metrics', metricsHandler(options.metrics.registry));
  if (oauth) {
    const metadata = (req: Request) => ({ resource: `${baseUrl(req)}/mcp`, authorization_servers: oauth, bearer_methods_supported: ['header'], resource_name: 'Switchyard MCP bridge' });
    app.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'], (req, res) => void res.json(metadata(req)));
  }

  app.use('/mcp', originGuard(options.allowedOrigins ?? []));
  const failedKeys = new FailedKeyLimiter({ redis: options.redis, prefix: options.prefix, limit: options.failedKeys?.limit, windowMs: options.failedKeys?.windowMs, onError: (error) => options.logger.warn({ err: error }, 'a wrong key could not be counted') });
  app.use('/mcp', bearerAuth({ keys: new KeyRing(options.apiKeys), failedKeys, ...(oauth ? { resourceMetadataUrl: (req: Request) => `${baseUrl(req)}/.well-known/oauth-protected-resource/mcp` } : {}) }));
  // Sessions, their events and tasks live in Redis: while it is unreachable /mcp answers 503 within a second.
  app.use('/mcp', unavailableGuard({ unavailable: () => redisUnavailable(options.redis) }));
  app.use('/mcp', jsonBody({ limit: `${MAX_MCP_MESSAGE_BYTES}b` }), parseErrors);
  app.all('/mcp', async (req, res) => {
    const token = presentedKey(req) as string; // the auth guard let the request through
    const digest = keyDigest(token);
    const scopes = principalOf(req)?.scopes ?? new Set();
    const key = keyId(token);
    const body: unknown = req.body;
    const messages = Array.isArray(body) ? (body as unknown[]) : [body];
    const initialize = req.method === 'POST' ? (messages.find((message) => isInitializeRequest(message)) as { id: RequestId; params: Record<string, unknown> } | undefined) : undefined;
    if (initialize) {
      // Bounded before anything is stored, and what is kept is what the session's server is given.
      try {
        initialize.params = boundInitialize(initialize.params, options.maxInitializeBytes);
      } catch (error) {
        if (!(error instanceof InitializeTooLargeError)) throw error;
        res.status(413).json(jsonRpcError(-32602, `Invalid params: ${error.message}`, initialize.id, { bytes: error.bytes, limit: error.limit }));
        return;
      }
      const sessionId = randomUUID();
      const admission = await quota.admit(sessionId, key);
      if (!admission.admitted) return refuseSession(res, admission, initialize.id);
      try {
        const session = await sessions.open(initialize.params, digest, scopes, sessionId);
        options.metrics?.sessionOpened();
        await forward(session.transport, req, res, { parsedBody: body, token });
      } finally {
        // An initialize the transport refused opened no session: its place is free again.
        if (!sessions.has(sessionId)) await quota.release(sessionId, key).catch((error: unknown) => options.logger.warn({ err: error }, 'could not free the place of a session that did not open'));
      }
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
    void Promise.all([records.touch(sessionId), quota.touch(sessionId, key)]).catch((error: unknown) => options.logger.warn({ err: error, session: sessionId }, 'could not refresh the session'));
    try {
      await forward(session.transport, req, res, { parsedBody: req.method === 'POST' ? body : undefined, token });
    } finally {
      session.active -= 1;
      session.lastSeen = Date.now();
    }
    if (req.method === 'DELETE' && res.statusCode < 300) await quota.release(sessionId, key);
  });
  app.use(notFoundHandler);
  app.use(errorMiddleware(options.logger));
  return { app, sessions, records, quota, probes };
}
