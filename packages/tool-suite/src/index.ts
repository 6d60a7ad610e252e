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
  /**
   * Flow control of the runs the call starts: the caller's key id (the API key of an HTTP session;
   * absent over stdio) and the priority class it asked for in the request's
   * `_meta["switchyard/priority"]` (1 first to 9 last), if any.
   */
  caller?: { keyId?: string | undefined; priority?: number | undefined } | undefined;
  /** Reports progress when the caller asked for it; a no-op otherwise. */
  reportProgress(progress: { progress: number; total?: number; message?: string }): Promise<void>;
  /**
   * The scopes of the key the session was opened with (`read`, `run`, `admin`): a tool that acts
   * for the caller checks them where it acts (stdio, whose user started the server, holds every scope).
   */
  scopes: ReadonlySet<string>;
  /** The id of the session's key (keyId), which holds the runs the call starts (none over stdio). */
  keyId?: string;
  /**
   * Asks the person behind the client to fill a form (MCP `elicitation/create`, form mode).
   * Present only when the client declared that it can, the call is not a task, and the session's
   * key may answer what it would be asked (`run`).
   */
  elicit?(form: ElicitForm, options: { signal: AbortSignal; timeoutMs: number }): Promise<ElicitAnswer>;
}

/** A form to elicit: flat, each property a primitive (string, number, integer, boolean, string enum). */
export interface ElicitForm {
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
}

/** What the person did: `accept` with the form's `content`, `decline`, or `cancel` (dismissed). */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown> | undefined;
}

/**
 * What a handler answers: the seed's result object, and whether it is a failure. A failure is a
 * result the agent should see and act on (`isError`), not a protocol error.
 */
export interface ToolOutcome {
  content: Record<string, unknown>;
  isError?: boolean;
  /**
   * Content blocks to answer instead of `content` as JSON text (an image, audio, an embedded
   * resource), for a tool without an output schema. Default: `content` as one JSON text block.
   */
  blocks?: ToolContentBlock[];
}

/** A block of a tool's answer, as MCP shapes them (binary data base64-encoded). */
export type ToolContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } };

export interface SuiteTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** A call may take long: the bridge lets clients run it as an MCP task (task support optional). */
  longRunning?: boolean;
  /**
   * Checks arguments instead of the bridge's shared validator compiling `inputSchema`: for a
   * schema a user wrote (a pipeline's input), compiled on its own, with patterns run in linear
   * time. One line per problem, e.g. `arguments/topic must be string`; none when they pass.
   */
  checkArguments?(args: Record<string, unknown>): string[];
  /** `args` have passed `inputSchema`. May throw for a bug; callers' mistakes are outcomes. */
  handler(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome>;
}

/** Arguments a tool refused: they broke its input schema, or a rule the schema cannot state. */
export interface ArgumentsRefusal {
  /** One line naming each problem, e.g. `arguments/topic must be string`. */
  message: string;
  details: unknown;
  /** The arguments as the call gave them. */
  args: Record<string, unknown>;
  /** The JSON-RPC id of the `tools/call` request (for suites whose answers carry it). */
  requestId: string | number;
}

/**
 * What a suite answers for refused arguments when it says nothing of its own:
 * `{error:{code:'invalid_arguments',message,details}}` as an `isError` result.
 */
export const refusedArguments = (refusal: ArgumentsRefusal): ToolOutcome => ({ content: { error: { code: 'invalid_arguments', message: refusal.message, details: refusal.details } }, isError: true });

export interface ToolSuite {
  name: string;
  description: string;
  tools: SuiteTool[];
  /**
   * The suite's own answer to arguments a tool refused, in that tool's failure shape, so that a
   * model can read and correct them (MCP answers them as a tool result, not a protocol error).
   * Default: `refusedArguments`.
   */
  refuseArguments?(tool: string, refusal: ArgumentsRefusal): ToolOutcome;
  /**
   * For a suite whose tools can grow after start-up (a tool service that answered late): the
   * listener is called with each set of tools added. Absent: the tools are fixed.
   */
  onToolsAdded?(listener: (tools: SuiteTool[]) => void): void;
  /** For a suite whose tools can go after start-up (a deleted pipeline): the listener is called with the names of the tools gone. */
  onToolsRemoved?(listener: (names: string[]) => void): void;
}

/** JSON Schema of a zod object schema, as a suite publishes it. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}

/**
 * Thrown by a handler for arguments its input schema could not rule out (e.g. a batch item that is
 * incomplete only once merged over the defaults). The bridge answers it like a schema mismatch,
 * with the suite's refusal (see ToolSuite.refuseArguments); the handler must not have changed anything.
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
