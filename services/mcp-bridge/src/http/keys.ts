/**
 * Redis keys of the bridge's HTTP sessions, under the deployment's prefix. Everything a session
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
}

export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = `${prefix}:mcp:session:${sessionId}`;
  return {
    record: base,
    state: `${base}:state`,
    stream: (streamId) => `${base}:stream:${streamId}`,
    request: (streamId) => `${base}:request:${streamId}`,
  };
}

/** A bridge instance's heartbeat: present while the process lives. */
export const instanceKey = (prefix: string, instanceId: string) => `${prefix}:mcp:instance:${instanceId}`;

/** Session ids are UUIDs the bridge generated; anything else names no session and touches no key. */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
