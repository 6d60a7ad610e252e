export { McpServerConfig, McpServersConfig, McpServersJson, MCP_SERVERS_LIMITS, mcpServersEnvShape, parseMcpServersEnv } from './config.js';
export type { McpHttpServerConfig, McpStdioServerConfig } from './config.js';
export { IDEMPOTENCY_META_KEY, McpToolSource } from './source.js';
export type { McpToolSourceOptions, McpTool, McpCallOptions, McpCallResult } from './source.js';
export { McpToolResultError, toToolError } from './errors.js';
export { ReplyTooLargeError } from './transport.js';
