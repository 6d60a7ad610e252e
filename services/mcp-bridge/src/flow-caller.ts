/**
 * Who starts a run over MCP, for flow control: the session's API key (its id) is the key the
 * run shares queues fairly under, and `_meta["switchyard/priority"]` of the `tools/call` request
 * (1 first to 9 last) its priority class; a value that is not one is left out (the default).
 */
import { keyId } from '@switchyard/http-kit';
import { callerKey, PRIORITY_FIRST, PRIORITY_LAST, type CallerFlow } from '@switchyard/pipeline';
import type { ToolContext } from '@switchyard/tool-suite';

/** The `_meta` field naming a call's priority class. */
export const PRIORITY_META_KEY = 'switchyard/priority';

export function callerOfRequest(token: string | undefined, meta: Record<string, unknown> | undefined): NonNullable<ToolContext['caller']> {
  const asked = meta?.[PRIORITY_META_KEY];
  const priority = typeof asked === 'number' && Number.isInteger(asked) && asked >= PRIORITY_FIRST && asked <= PRIORITY_LAST ? asked : undefined;
  return { ...(token ? { keyId: keyId(token) } : {}), ...(priority === undefined ? {} : { priority }) };
}

/** The flow of the runs a tool call starts; `priority` given as an argument goes before the request's `_meta`. */
export function callerFlow(context: Pick<ToolContext, 'caller'> | undefined, priority?: number): CallerFlow {
  const chosen = priority ?? context?.caller?.priority;
  return { key: callerKey(context?.caller?.keyId), ...(chosen === undefined ? {} : { priority: chosen }) };
}
