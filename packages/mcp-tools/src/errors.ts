/**
 * MCP failures as the tool client's typed errors, so a worker treats an MCP tool exactly as a
 * tool-service one: `retryable` decides between another attempt and a failure that is final.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ToolAbortedError, ToolCallError, ToolNetworkError, ToolProtocolError, ToolRejectedError, ToolTimeoutError, ToolUnavailableError } from '@switchyard/tool-client';

/** The tool ran and answered `isError: true`: its own refusal or failure, carried as it said it. */
export class McpToolResultError extends ToolCallError {
  override name = 'McpToolResultError';
  readonly retryable = false;
  /** The result's `content` blocks, as the tool sent them. */
  readonly content: unknown[];
  /** The result's `structuredContent`, if any. */
  readonly structuredContent: unknown;
  constructor(fields: { service: string; tool: string; content: unknown[]; structuredContent: unknown }) {
    super({ service: fields.service, tool: fields.tool, code: 'tool_error', message: `${fields.service}/${fields.tool} answered with an error: ${firstText(fields.content) ?? 'no text'}`, details: { content: fields.content, structuredContent: fields.structuredContent } });
    this.content = fields.content;
    this.structuredContent = fields.structuredContent;
  }
}

const firstText = (content: unknown[]) => {
  const block = content.find((c): c is { type: 'text'; text: string } => !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text');
  return block?.text.slice(0, 500);
};

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/**
 * Whether an error means the connection is gone (so the next attempt must connect again):
 * a refused or broken socket, a closed stdio pipe, or a server that no longer knows the session.
 */
export function connectionLost(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return error.code === 404 || (error.code !== undefined && error.code >= 500);
  // undici's fetch fails with a TypeError ('fetch failed', 'terminated'); other TypeErrors are bugs, not the network.
  if (error instanceof TypeError) return /fetch failed|terminated|network/i.test(error.message);
  return error instanceof Error && /ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|not connected/i.test(error.message);
}

/**
 * The connection went while a request was on it, its answer lost (not: refused before anything was
 * sent, or an HTTP status the server chose to answer with).
 */
export function droppedInFlight(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError) return false;
  const text = error instanceof Error ? `${error.message} ${error.cause instanceof Error ? error.cause.message : ''}` : '';
  if (/ECONNREFUSED|ENOTFOUND|not connected/i.test(text)) return false;
  return connectionLost(error);
}

/** Maps whatever the SDK threw to a ToolCallError; `aborted` says the caller's signal fired. */
export function toToolError(error: unknown, context: { service: string; tool?: string | undefined; aborted: boolean }): ToolCallError {
  const { service, tool } = context;
  if (error instanceof ToolCallError) return error;
  const cause = error;
  const message = error instanceof Error ? error.message : String(error);
  if (context.aborted) return new ToolAbortedError({ service, tool, code: 'aborted', message: `the call to ${service}/${tool ?? '?'} was cancelled`, cause });
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    if (RETRYABLE_STATUS.has(error.code) || error.code >= 500) return new ToolUnavailableError({ service, tool, status: error.code, code: `http_${error.code}`, message, cause });
    // 404: the server forgot our session (it restarted); a new connection fixes that.
    if (error.code === 404) return new ToolNetworkError({ service, tool, code: 'session_lost', message, cause });
    return new ToolRejectedError({ service, tool, status: error.code, code: `http_${error.code}`, message, cause });
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return new ToolTimeoutError({ service, tool, code: 'timeout', message: `${service}/${tool ?? '?'} did not answer in time`, cause });
    if (error.code === ErrorCode.ConnectionClosed) return new ToolNetworkError({ service, tool, code: 'connection_closed', message, cause });
    return new ToolProtocolError({ service, tool, code: `mcp_${error.code}`, message, details: error.data, cause });
  }
  if (connectionLost(error)) return new ToolNetworkError({ service, tool, code: 'connection_failed', message: `${service} could not be reached: ${message}`, cause });
  return new ToolProtocolError({ service, tool, code: 'mcp_error', message, cause });
}
