/**
 * The MCP servers of MCP_SERVERS as agents' tool sources, one client each, started with the
 * worker: their tools are listed now and again whenever a server says they changed. A server that
 * cannot be reached at start-up is said once and tried again on the first call of one of its tools,
 * so one server down does not keep the workers from starting.
 */
import type { Logger } from '@switchyard/logger';
import { McpToolSource, type McpServersConfig } from '@switchyard/mcp-tools';

export async function startMcpSources(options: { servers: McpServersConfig; callTimeoutMs: number; maxResultBytes: number; maxTools: number; logger: Logger }): Promise<Map<string, McpToolSource>> {
  const sources = new Map<string, McpToolSource>();
  await Promise.all(
    Object.entries(options.servers).map(async ([name, server]) => {
      const source = new McpToolSource({
        name,
        server,
        callTimeoutMs: options.callTimeoutMs,
        maxResultBytes: options.maxResultBytes,
        maxTools: options.maxTools,
        onToolsChanged: (tools) => options.logger.info({ mcp_server: name, tools: tools.length }, 'MCP server tools listed'),
        onStderr: (text) => options.logger.debug({ mcp_server: name, stderr: text.slice(0, 2000) }, 'MCP server stderr'),
      });
      sources.set(name, source);
      try {
        await source.start(AbortSignal.timeout(options.callTimeoutMs));
      } catch (error) {
        options.logger.warn({ mcp_server: name, err: error, config: 'MCP_SERVERS' }, 'an MCP server could not be reached at start-up; its tools are listed again when first called');
      }
    }),
  );
  return sources;
}
