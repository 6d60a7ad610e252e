import { keyspace } from '@switchyard/redis';

/**
 * Redis keys of the bridge's HTTP sessions, each session's under a hash tag of its own
 * (`{sy:mcp:<session>}`), so that its multi-key steps stay in one Redis Cluster slot while sessions
 * spread over the masters. Everything a session
 * needs to outlive the process that opened it is here: its record, its suites' state, and the
 * events of each of its streams.
 */
export interface SessionKeys {
  /** Hash: the initialize request's params, the digest of the key that opened it, when. */
  record: string;
  /** Hash: suite state (field → JSON). */
  state: string;
  /** Stream: the events of one MCP stream (a request's, or the standalone GET stream). */
  stream(streamId: string): string;
  /** Hash: the request a stream answers, and the bridge instance working on it. */
  request(streamId: string): string;
  /** Sorted set: the session's MCP tasks by creation time. */
  tasks: string;
  /** Hash: one MCP task of the session (its ttl its own). */
  task(taskId: string): string;
}

export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = keyspace(prefix).own('mcp', sessionId);
  return {
    record: base,
    state: `${base}:state`,
    stream: (streamId) => `${base}:stream:${streamId}`,
    request: (streamId) => `${base}:request:${streamId}`,
    tasks: `${base}:tasks`,
    task: (taskId) => `${base}:task:${taskId}`,
  };
}

/** A bridge instance's heartbeat: present while the process lives. */
export const instanceKey = (prefix: string, instanceId: string) => `${keyspace(prefix).shared}:mcp:instance:${instanceId}`;

/** Session ids are UUIDs the bridge generated; anything else names no session and touches no key. */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
