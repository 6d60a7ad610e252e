/**
 * Who starts a run over MCP, for flow control: the session's API key (its id) is the key the
 * run shares queues fairly under, and `_meta["switchyard/priority"]` of the `tools/call` request
 * (1 first to 9 last) its priority class; a value that is not one is left out (the default).
 */
import { keyId } from '@switchyard/http-kit';
import { callerKey, PRIORITY_FIRST, PRIORITY_LAST, type CallerFlow, type RunViewer } from '@switchyard/pipeline';
import type { ToolContext } from '@switchyard/tool-suite';

/** The `_meta` field naming a call's priority class. */
export const PRIORITY_META_KEY = 'switchyard/priority';

export function callerOfRequest(token: string | undefined, meta: Record<string, unknown> | undefined): NonNullable<ToolContext['caller']> {
  const asked = meta?.[PRIORITY_META_KEY];
  const priority = typeof asked === 'number' && Number.isInteger(asked) && asked >= PRIORITY_FIRST && asked <= PRIORITY_LAST ? asked : undefined;
  return { ...(token ? { keyId: keyId(token) } : {}), ...(priority === undefined ? {} : { priority }) };
}

/**
 * The key id of a bridge over stdio (no API key): the runs its tools start are held by it under the
 * bound of live runs per key (RUNS_MAX_LIVE_PER_KEY), and share queues fairly under `key:stdio`.
 * Not a digest's hex, so no API key's id is the same.
 */
export const STDIO_KEY_ID = 'stdio';

/**
 * The flow of the runs a tool call starts; `priority` given as an argument goes before the request's
 * `_meta`. The key is the request's API key, else the session's (stdio's STDIO_KEY_ID).
 */
export function callerFlow(context: Pick<ToolContext, 'caller' | 'keyId'> | undefined, priority?: number): CallerFlow {
  const chosen = priority ?? context?.caller?.priority;
  return { key: callerKey(context?.caller?.keyId ?? context?.keyId), ...(chosen === undefined ? {} : { priority: chosen }) };
}

/** Who reads a run over MCP: the session's key, and whether it holds `admin` (stdio holds every scope). */
export function viewerOf(context: Pick<ToolContext, 'keyId' | 'scopes'>): RunViewer {
  return { keyId: context.keyId, admin: context.scopes.has('admin') };
}
