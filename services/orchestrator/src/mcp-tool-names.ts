/**
 * What registration asks of the MCP servers agent steps name: the tools each lists now, so that a
 * tool a server does not have is refused when the pipeline is registered, not when a run calls
 * it. One client per server, connected when first asked and kept (a stdio server's process is
 * started once); a server that cannot be asked within the time given leaves its tools to be
 * checked when called, so one server down does not stop registrations.
 */
import { McpToolSource, type McpServersConfig } from '@switchyard/mcp-tools';

/** Ms a registration waits for a server's listing before it checks that server's tools at run time: 5,000. */
export const MCP_LISTING_TIMEOUT_MS = 5_000;

/** The tools `server` of `sources` lists now (asked again each time), or undefined when it cannot be asked in `timeoutMs`. */
export function mcpToolNames(sources: ReadonlyMap<string, McpToolSource>, timeoutMs = MCP_LISTING_TIMEOUT_MS): (server: string) => Promise<readonly string[] | undefined> {
  return async (server) => {
    const source = sources.get(server);
    if (!source) return undefined;
    try {
      await source.refresh(AbortSignal.timeout(timeoutMs));
      return source.tools().map((tool) => tool.name);
    } catch {
      return undefined;
    }
  };
}

/** A source per configured server, not yet connected (each connects when first asked). */
export function mcpSourcesOf(servers: McpServersConfig, options: { maxTools?: number | undefined } = {}): Map<string, McpToolSource> {
  return new Map(Object.entries(servers).map(([name, server]) => [name, new McpToolSource({ name, server, maxTools: options.maxTools, retry: { retries: 0 } })]));
}
