/**
 * A tool suite is a folder that exports one `ToolSuite`: its tools, each with the JSON Schema of
 * its input (what clients see and what the server checks before calling), an optional output
 * schema, annotations, and a handler. Suites know nothing of MCP; the bridge serves them.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Per-session state a suite may keep (e.g. who is logged in); lives as long as the session. */
export interface SessionState {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface ToolContext {
  /** The MCP session (or "stdio" for a stdio connection). */
  sessionId: string;
  /** The JSON-RPC id of the `tools/call` request being answered. */
  requestId: string | number;
  session: SessionState;
  signal: AbortSignal;
  /** Reports progress when the caller asked for it; a no-op otherwise. */
  reportProgress(progress: { progress: number; total?: number; message?: string }): Promise<void>;
}

/**
 * What a handler answers: the seed's result object, and whether it is a failure. A failure is a
 * result the agent should see and act on (`isError`), not a protocol error.
 */
export interface ToolOutcome {
  content: Record<string, unknown>;
  isError?: boolean;
}

export interface SuiteTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** A call may take long: the bridge lets clients run it as an MCP task (task support optional). */
  longRunning?: boolean;
  /** `args` have passed `inputSchema`. May throw for a bug; callers' mistakes are outcomes. */
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

export interface ToolSuite {
  name: string;
  description: string;
  tools: SuiteTool[];
  /**
   * For a suite whose tools can grow after start-up (a tool service that answered late): the
   * listener is called with each set of tools added. Absent: the tools are fixed.
   */
  onToolsAdded?(listener: (tools: SuiteTool[]) => void): void;
}

/** JSON Schema of a zod object schema, as a suite publishes it. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}

/**
 * Thrown by a handler for arguments its input schema could not rule out (e.g. a batch item that is
 * incomplete only once merged over the defaults). The bridge answers it as the protocol's
 * invalid-params error, like a schema mismatch; the handler must not have changed anything.
 */
export class InvalidArgumentsError extends Error {
  override name = 'InvalidArgumentsError';
  readonly details: unknown;
  constructor(message: string, details?: unknown) {
    super(message);
    this.details = details;
  }
}

export const success = (content: Record<string, unknown>): ToolOutcome => ({ content });
export const failure = (content: Record<string, unknown>): ToolOutcome => ({ content, isError: true });

/** A SessionState in memory, for tests and stdio connections. */
export function memorySession(): SessionState {
  const values = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => values.get(key) as T | undefined,
    set: async (key, value) => void values.set(key, value),
    delete: async (key) => void values.delete(key),
  };
}
