/**
 * Redis outages as one process sees them. Every client made by createRedisClient (and each
 * duplicate handed to `followRedis`) reports here, so that an outage is one structured log line
 * when Redis goes away and one when it is back, with how long it was gone: not a line per
 * reconnect attempt per connection, and never ioredis' "Unhandled error event" trace.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

export interface OutageLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface OutageState {
  since: number | null;
  reason: string;
  logger: OutageLogger | undefined;
}

const state: OutageState = { since: null, reason: '', logger: undefined };

/** Where this process says that Redis went away and came back (default: nowhere). */
export function reportRedisOutagesTo(logger: OutageLogger): void {
  state.logger = logger;
}

function wentAway(reason: string): void {
  if (state.since !== null) return;
  state.since = Date.now();
  state.reason = reason;
  state.logger?.warn({ redis: 'unreachable', reason }, 'Redis is unreachable; requests that need it answer 503 until it is back');
}

function cameBack(): void {
  if (state.since === null) return;
  const outageMs = Date.now() - state.since;
  state.since = null;
  state.logger?.info({ redis: 'reachable', outage_ms: outageMs }, 'Redis is reachable again');
}

/** Reports `client`'s connection losses and recoveries; its errors are never unhandled. */
export function followRedis(client: Redis): Redis {
  client.on('error', (error: Error) => wentAway(error.message));
  client.on('reconnecting', () => wentAway('the connection was lost'));
  client.on('ready', cameBack);
  return client;
}

/** Why `client` cannot serve a request now, or null when it can. */
export function redisUnavailable(client: Redis): string | null {
  if (client.status === 'ready') return null;
  if (state.since !== null) return `Redis is unreachable: ${state.reason}`;
  // Still making its first connection: commands wait in the client's queue for moments, not an outage.
  if (['wait', 'connecting', 'connect'].includes(client.status)) return null;
  return `the Redis connection is ${client.status}`;
}

/** Errors that only say the connection is down; the outage line covers them. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTCONN', 'EHOSTUNREACH'].includes(code)) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /Connection is closed|Stream isn't writeable|connect ECONNREFUSED|read ECONNRESET|socket hang up|LOADING|Reached the max retries/i.test(message);
}

export interface RedisCheck {
  healthy: boolean;
  latency_ms: number;
  error?: string;
}

/** Redis for a /health report: known down at once, else a PING that must answer within half a second. */
export async function checkRedis(client: Redis): Promise<RedisCheck> {
  const started = performance.now();
  const down = redisUnavailable(client);
  if (down) return { healthy: false, latency_ms: 0, error: down };
  const timeout = sleep(500, 'no answer to PING within 0.5 s', { ref: false });
  const answer = await Promise.race([client.ping().then(() => null, (error: Error) => error.message), timeout]);
  return { healthy: answer === null, latency_ms: Math.round((performance.now() - started) * 100) / 100, ...(answer === null ? {} : { error: answer }) };
}
