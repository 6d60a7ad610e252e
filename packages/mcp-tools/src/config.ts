/**
 * `MCP_SERVERS`: which MCP servers the workers use as tool sources. A JSON object of
 * name → `{ url, headers? }` (Streamable HTTP) or name → `{ command, args?, env?, cwd? }` (stdio).
 * Every part is bounded: the variable is configuration, but a bad one must fail start-up with
 * the variable's name, not exhaust memory later.
 */
import { z } from 'zod';
import { SERVICE_NAME } from '@switchyard/contracts';

/** Bounds of `MCP_SERVERS` itself. */
export const MCP_SERVERS_LIMITS = {
  /** Bytes of the whole JSON text. */
  jsonBytes: 64 * 1024,
  /** Servers named. */
  servers: 32,
  /** Headers per HTTP server. */
  headers: 32,
  /** Bytes of one header name. */
  headerNameBytes: 256,
  /** Bytes of one header value (a bearer token fits many times). */
  headerValueBytes: 8 * 1024,
  /** Arguments and environment entries per stdio command. */
  argsOrEnv: 64,
  /** Bytes of one argument, environment value or path. */
  stringBytes: 4 * 1024,
} as const;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const boundedString = z.string().min(1).refine((s) => bytes(s) <= MCP_SERVERS_LIMITS.stringBytes, `at most ${MCP_SERVERS_LIMITS.stringBytes} bytes`);

/** RFC 9110 token characters: a header name an HTTP library will accept. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const HttpServer = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z
    .record(
      z.string().regex(HEADER_NAME, 'a header name is an HTTP token').refine((name) => bytes(name) <= MCP_SERVERS_LIMITS.headerNameBytes, `a header name is at most ${MCP_SERVERS_LIMITS.headerNameBytes} bytes`),
      z.string().refine((value) => bytes(value) <= MCP_SERVERS_LIMITS.headerValueBytes, `a header value is at most ${MCP_SERVERS_LIMITS.headerValueBytes} bytes`).refine((value) => !/[\r\n\0]/.test(value), 'a header value has no CR, LF or NUL'),
    )
    .refine((headers) => Object.keys(headers).length <= MCP_SERVERS_LIMITS.headers, `at most ${MCP_SERVERS_LIMITS.headers} headers`)
    .optional(),
});

const StdioServer = z.strictObject({
  command: boundedString,
  args: z.array(boundedString).max(MCP_SERVERS_LIMITS.argsOrEnv).optional(),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment name is letters, digits and _'), z.string().refine((s) => bytes(s) <= MCP_SERVERS_LIMITS.stringBytes, `at most ${MCP_SERVERS_LIMITS.stringBytes} bytes`))
    .refine((env) => Object.keys(env).length <= MCP_SERVERS_LIMITS.argsOrEnv, `at most ${MCP_SERVERS_LIMITS.argsOrEnv} variables`)
    .optional(),
  cwd: boundedString.optional(),
});

/** One MCP server: reached over Streamable HTTP (`url`) or started as a child process (`command`). */
export const McpServerConfig = z.union([HttpServer, StdioServer]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type McpHttpServerConfig = z.infer<typeof HttpServer>;
export type McpStdioServerConfig = z.infer<typeof StdioServer>;

/** name → server. A name follows the tool services' rule (lower-case letters, digits and -). */
export const McpServersConfig = z
  .record(z.string().regex(SERVICE_NAME, 'a server name is lower-case letters, digits and - (at most 40)'), McpServerConfig)
  .refine((servers) => Object.keys(servers).length <= MCP_SERVERS_LIMITS.servers, `at most ${MCP_SERVERS_LIMITS.servers} servers`);
export type McpServersConfig = z.infer<typeof McpServersConfig>;

/** The `MCP_SERVERS` text: bounded, JSON, then {@link McpServersConfig}. */
export const McpServersJson = z
  .string()
  .refine((text) => bytes(text) <= MCP_SERVERS_LIMITS.jsonBytes, `MCP_SERVERS is at most ${MCP_SERVERS_LIMITS.jsonBytes} bytes`)
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON object of server name → {url, headers} or {command, args, env, cwd}' });
      return z.NEVER;
    }
  })
  .pipe(McpServersConfig);

/**
 * zod shape of the MCP tool-source variables, to spread into a service's env schema.
 * - `MCP_SERVERS` (default: none) — see {@link McpServersJson}.
 * - `MCP_CALL_TIMEOUT_MS` (default 30000) — one attempt of a tool call.
 * - `MCP_MAX_RESULT_BYTES` (default 1 MiB) — largest tool result accepted.
 * - `MCP_MAX_TOOLS` (default 500) — most tools one server may list.
 */
export const mcpServersEnvShape = {
  MCP_SERVERS: McpServersJson.optional(),
  MCP_CALL_TIMEOUT_MS: z.coerce.number().int().positive().max(3_600_000).default(30_000),
  MCP_MAX_RESULT_BYTES: z.coerce.number().int().positive().max(64 * 1024 * 1024).default(1024 * 1024),
  MCP_MAX_TOOLS: z.coerce.number().int().positive().max(10_000).default(500),
};

/** Parses the MCP variables from `source` (throws a ZodError naming the variable on bad values). */
export function parseMcpServersEnv(source: Record<string, string | undefined>) {
  const env = z.object(mcpServersEnvShape).parse(source);
  return { servers: env.MCP_SERVERS ?? {}, callTimeoutMs: env.MCP_CALL_TIMEOUT_MS, maxResultBytes: env.MCP_MAX_RESULT_BYTES, maxTools: env.MCP_MAX_TOOLS };
}
