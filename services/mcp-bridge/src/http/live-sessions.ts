/**
 * The sessions this process serves: a transport and an MCP server each. The SDK's transport
 * keeps a session in memory only, so a session this process does not know but Redis does (opened
 * by another replica, or by this bridge before a restart) is re-created under the same id: a new
 * transport and server are given the client's recorded initialize request, through the public
 * `handleRequest`, which marks the transport initialized with that id and tells the server the
 * client's capabilities. The events of that replay are not stored.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Scope } from '@switchyard/config';
import type { Logger } from '@switchyard/logger';
import type { Redis } from 'ioredis';
import type { BridgeFeatures } from '../features.js';
import type { ToolRegistry } from '../registry.js';
import { createBridgeServer } from '../server.js';
import { RedisTaskStore, taskLeases, type RedisTaskStoreOptions } from '../tasks/redis-task-store.js';
import type { TaskLeases } from '../tasks/task-leases.js';
import { RedisEventStore } from './event-store.js';
import { SESSION_ID } from './keys.js';
import { sameDigest, type SessionRecords } from './session-records.js';

export interface LiveSession {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  keyDigest: string;
  /** Requests being answered now; a session with any is never evicted. */
  active: number;
  lastSeen: number;
}

export interface LiveSessionsOptions {
  tools: ToolRegistry;
  /** Resources, prompts, completions and logging (default: tools only). */
  features?: BridgeFeatures | undefined;
  records: SessionRecords;
  redis: Redis;
  /** The deployment's key prefix, for the sessions' tasks. */
  prefix: string;
  logger: Logger;
  /** Seconds a stream's events stay replayable (default 3600). */
  eventTtlSeconds?: number;
  /** Reconnection delay suggested to clients in the SSE `retry` field, in ms (default 1000). */
  retryIntervalMs?: number;
  /** Milliseconds between SSE keep-alive comments (default 15000). */
  keepAliveMs?: number;
  /** Idle milliseconds after which a session is dropped from memory, not from Redis (default 10 min). */
  idleMs?: number;
  /** How long a task stays working once its bridge stops renewing it, in ms (default 15 s). */
  taskLeaseMs?: number;
  /** Told of each status the sessions' tasks enter (default: nobody). */
  taskObserver?: RedisTaskStoreOptions['observer'];
}

export class LiveSessions {
  readonly #options: LiveSessionsOptions;
  readonly #sessions = new Map<string, LiveSession>();
  readonly #restoring = new Map<string, Promise<LiveSession | undefined>>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #leases: TaskLeases;

  constructor(options: LiveSessionsOptions) {
    this.#options = options;
    this.#leases = taskLeases({ redis: options.redis, leaseMs: options.taskLeaseMs });
    const idleMs = options.idleMs ?? 10 * 60_000;
    this.#sweeper = setInterval(() => this.#evictIdle(idleMs), Math.min(idleMs, 60_000));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Tasks whose calls run in this process now. */
  get tasksRunning(): number {
    return this.#leases.size;
  }

  /** Whether session `sessionId` is live in this process (a new one: once its initialize went through). */
  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /**
   * A new session, recorded in Redis once the client's initialize request has gone through.
   * @param scopes the scopes of the key opening it: which tools the session sees and may call
   */
  async open(initialize: Record<string, unknown>, keyDigest: string, scopes: ReadonlySet<Scope>, sessionId: string = randomUUID()): Promise<LiveSession> {
    return this.#build(sessionId, keyDigest, scopes, async (id) => {
      await this.#options.records.create(id, { initialize, keyDigest, createdAt: new Date().toISOString() });
    });
  }

  /**
   * The session, live here or re-created from Redis; undefined when it does not exist for this key.
   * @param scopes the key's scopes, for a session re-created here (the key is the one that opened it)
   */
  async find(sessionId: string, keyDigest: string, scopes: ReadonlySet<Scope>): Promise<LiveSession | undefined> {
    if (!SESSION_ID.test(sessionId)) return undefined;
    const live = this.#sessions.get(sessionId);
    if (live) return sameDigest(live.keyDigest, keyDigest) ? live : undefined;
    // Per key too: a restore asked by another key builds nothing, and must not stand for the owner's.
    const attempt = `${sessionId} ${keyDigest}`;
    let restoring = this.#restoring.get(attempt);
    if (!restoring) {
      restoring = this.#restore(sessionId, keyDigest, scopes).finally(() => this.#restoring.delete(attempt));
      this.#restoring.set(attempt, restoring);
    }
    const restored = await restoring;
    return restored && sameDigest(restored.keyDigest, keyDigest) ? restored : undefined;
  }

  /** Closes every session's transport and server; their records stay, to be taken up again. */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    // Calls still running here cannot finish elsewhere: their tasks fail now, not when the lease runs out.
    await this.#leases.close();
    await Promise.all([...this.#sessions.values()].map((session) => session.server.close().catch(() => undefined)));
    this.#sessions.clear();
  }

  /** Re-creates a session recorded in Redis, for the key that opened it only (its server holds that key's scopes). */
  async #restore(sessionId: string, keyDigest: string, scopes: ReadonlySet<Scope>): Promise<LiveSession | undefined> {
    const record = await this.#options.records.get(sessionId);
    if (!record || !sameDigest(record.keyDigest, keyDigest)) return undefined;
    const concurrent = this.#sessions.get(sessionId);
    if (concurrent) return concurrent;
    const session = await this.#build(sessionId, record.keyDigest, scopes, undefined, async (transport, eventStore) => {
      eventStore.mute(true);
      try {
        await replay(transport, { jsonrpc: '2.0', id: `restore-${randomUUID()}`, method: 'initialize', params: record.initialize });
        await replay(transport, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
      } finally {
        eventStore.mute(false);
      }
    });
    this.#options.logger.info({ session: sessionId }, 'session restored from Redis');
    return session;
  }

  async #build(
    id: string,
    keyDigest: string,
    scopes: ReadonlySet<Scope>,
    onInitialized?: (id: string) => Promise<void>,
    restore?: (transport: WebStandardStreamableHTTPServerTransport, eventStore: RedisEventStore) => Promise<void>,
  ): Promise<LiveSession> {
    const { records, redis, tools, logger } = this.#options;
    const eventStore = new RedisEventStore({ redis, keys: records.keys(id), ttlSeconds: this.#options.eventTtlSeconds });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore,
      retryInterval: this.#options.retryIntervalMs ?? 1000,
      keepAliveMs: this.#options.keepAliveMs,
      onsessioninitialized: async (sessionId) => {
        await onInitialized?.(sessionId);
        this.#sessions.set(sessionId, session);
      },
      onsessionclosed: async (sessionId) => {
        await records.remove(sessionId);
        logger.info({ session: sessionId }, 'session closed by the client');
      },
    });
    transport.onclose = () => {
      if (this.#sessions.get(id) === session) this.#sessions.delete(id);
    };
    transport.onerror = (error) => logger.debug({ err: error, session: id }, 'transport');
    const tasks = new RedisTaskStore({ redis, prefix: this.#options.prefix, sessionId: id, leases: this.#leases, observer: this.#options.taskObserver });
    const features = this.#options.features;
    const server = createBridgeServer({ tools, sessionId: id, session: records.state(id), logger, tasks, scopes, keyId: keyDigest.slice(0, 16), ...(features ? { features } : {}) });
    const session: LiveSession = { id, transport, server, keyDigest, active: 0, lastSeen: Date.now() };
    await server.connect(transport);
    await restore?.(transport, eventStore);
    return session;
  }

  #evictIdle(idleMs: number): void {
    const before = Date.now() - idleMs;
    for (const session of this.#sessions.values()) {
      if (session.active === 0 && session.lastSeen < before) {
        this.#sessions.delete(session.id);
        void session.server.close().catch(() => undefined);
      }
    }
  }
}

/** Passes one message through the transport as a client's POST would, and waits for its answer. */
async function replay(transport: WebStandardStreamableHTTPServerTransport, message: Record<string, unknown>, sessionId?: string): Promise<void> {
  const request = new Request('http://bridge.internal/mcp', {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
  });
  const response = await transport.handleRequest(request, { parsedBody: message });
  await response.text();
  if (!response.ok) throw new Error(`Could not restore the session: ${response.status}`);
}
