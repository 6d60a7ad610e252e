/**
 * One MCP server as a tool source: connects with the SDK's Client, lists its tools (every page,
 * bounded) at start and again on `notifications/tools/list_changed`, and calls them with the same
 * discipline as tool-service calls: arguments checked first, a timeout per attempt, the caller's
 * AbortSignal (which the SDK turns into `notifications/cancelled`), retries with backoff for what
 * may pass, and a fresh connection when the old one is gone.
 */
import type { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_RETRY, InputSchemas, ToolInputError, ToolProtocolError, withRetries, type RetryNotice, type RetryOptions } from '@switchyard/tool-client';
import type { McpServerConfig } from './config.js';
import { connectionLost, droppedInFlight, McpToolResultError, toToolError } from './errors.js';
import { createTransport, ReplyTooLargeError } from './transport.js';

export interface McpToolSourceOptions {
  /** The server's name from `MCP_SERVERS`: it appears in errors as their `service`. */
  name: string;
  server: McpServerConfig;
  /** Timeout of one call attempt in ms (default 30000). */
  callTimeoutMs?: number;
  /** Largest tool result accepted, in bytes of its JSON (default 1 MiB). */
  maxResultBytes?: number;
  /** Most tools the server may list; more is refused as a protocol error (default 500). */
  maxTools?: number;
  /** Retries of transient failures (default: the tool client's DEFAULT_RETRY). */
  retry?: Partial<RetryOptions>;
  /** Told of each retry. */
  onRetry?: (notice: RetryNotice) => void;
  /** Told of the tool list after each refresh. */
  onToolsChanged?: (tools: readonly McpTool[]) => void;
  /** Lines a stdio server writes on stderr (drained either way). */
  onStderr?: (text: string) => void;
}

/** A tool as the source publishes it. */
export interface McpTool {
  name: string;
  description: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | undefined;
}

export interface McpCallOptions {
  tool: string;
  arguments?: Record<string, unknown>;
  signal?: AbortSignal;
  /** Overrides `callTimeoutMs` for this call (per attempt). */
  timeoutMs?: number;
  /**
   * Sent in the request's `_meta` as `switchyard/idempotency_key`, the same with every attempt:
   * derived by the caller from what the call is for, so it survives takeovers too (default none).
   */
  idempotencyKey?: string | undefined;
}

/** The `_meta` field of a call's request that carries its idempotency key. */
export const IDEMPOTENCY_META_KEY = 'switchyard/idempotency_key';

/** What a successful call returns: the result's content blocks and structured content. */
export interface McpCallResult {
  content: unknown[];
  structuredContent: Record<string, unknown> | undefined;
}

/** Room for the JSON-RPC envelope and progress notifications around a result of the allowed size. */
const ENVELOPE_BYTES = 64 * 1024;
/** A call of an unknown tool lists the tools again only if the last listing is older than this. */
const MISS_REFRESH_MS = 1000;
/** A server that pages without end is cut off after this many pages, whatever maxTools is. */
const MAX_LIST_PAGES = 100;

export class McpToolSource {
  readonly name: string;
  readonly #options: McpToolSourceOptions;
  /** The clients whose server is a process of ours over stdio. */
  readonly #overStdio = new WeakSet<Client>();
  /** The attempt of each call's params, marked sent as a stdio transport writes them (#markWrites). */
  readonly #writes = new WeakMap<object, { sent: boolean }>();
  readonly #retry: RetryOptions;
  readonly #callTimeoutMs: number;
  readonly #maxResultBytes: number;
  readonly #maxTools: number;
  // Checks arguments before anything is sent, as the tool client does for tool services: a refusal names every problem and is never retried.
  readonly #checker = new InputSchemas();
  #tools = new Map<string, McpTool>();
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #closed = false;
  #overflowed = false;
  #listedAt = -Infinity;

  constructor(options: McpToolSourceOptions) {
    this.name = options.name;
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.#maxResultBytes = options.maxResultBytes ?? 1024 * 1024;
    this.#maxTools = options.maxTools ?? 500;
  }

  /** Connects and lists the tools (with retries); call once before `tools()`. */
  async start(signal?: AbortSignal): Promise<void> {
    await withRetries({ retry: this.#retry, signal, onRetry: this.#options.onRetry, run: () => this.#guard(undefined, signal, () => this.#connection()) });
  }

  /** The tools as last listed. */
  tools(): McpTool[] {
    return [...this.#tools.values()];
  }

  /** Lists the tools again now (with retries). */
  async refresh(signal?: AbortSignal): Promise<void> {
    await withRetries({ retry: this.#retry, signal, onRetry: this.#options.onRetry, run: () => this.#guard(undefined, signal, async () => this.#list(await this.#connection(), signal)) });
  }

  /**
   * Calls a tool. Throws ToolInputError before sending anything when the tool is unknown or the
   * arguments break its inputSchema, McpToolResultError when the tool answers `isError`, and the
   * tool client's other ToolCallErrors (retryable ones after the retries ran out).
   */
  async call(options: McpCallOptions): Promise<McpCallResult> {
    const args = options.arguments ?? {};
    await this.#checkArguments(options.tool, args, options.signal);
    return withRetries({
      retry: this.#retry,
      signal: options.signal,
      onRetry: this.#options.onRetry,
      run: async () => {
        const attempt = { sent: false };
        try {
          return await this.#guard(options.tool, options.signal, () => this.#callOnce(options, args, attempt));
        } catch (error) {
          // Its request was on its way when the connection went: the tool may have done its work,
          // and a tool with side effects must not do it twice. The caller is told; nothing is resent.
          if (attempt.sent && error instanceof Error && droppedInFlight(error.cause)) throw this.#cutOff(options.tool, error);
          throw error;
        }
      },
    });
  }

  #cutOff(tool: string, error: Error): ToolProtocolError {
    return new ToolProtocolError({ service: this.name, tool, code: 'call_cut_off', message: `the connection to ${this.name} dropped after the call of ${tool} was sent: it may have run, and it is not sent again (${error.message})` });
  }

  /** Closes the connection (a stdio server's process ends); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  async #checkArguments(tool: string, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<void> {
    // The server may have added it since we listed: one refresh before calling it unknown, but
    // not more than once a second, so calls of made-up names cannot flood the server with listings.
    if (!this.#tools.has(tool) && performance.now() - this.#listedAt > MISS_REFRESH_MS) await this.refresh(signal);
    const descriptor = this.#tools.get(tool);
    if (!descriptor) throw new ToolInputError({ service: this.name, tool, code: 'tool_not_found', message: `${this.name} does not publish a tool named '${tool}'` });
    this.#checker.check({ service: this.name, tool, schema: descriptor.inputSchema }, args);
  }

  async #callOnce(options: McpCallOptions, args: Record<string, unknown>, attempt: { sent: boolean }): Promise<McpCallResult> {
    const client = await this.#connection();
    const meta = options.idempotencyKey ? { _meta: { [IDEMPOTENCY_META_KEY]: options.idempotencyKey } } : {};
    const params = { name: options.tool, arguments: args, ...meta };
    // Over HTTP a request is on its way once asked for. Over stdio, once written into the server's
    // stdin (#markWrites): a server that had died before (the write refused) is started again and
    // asked again; one that dies after may have done the work (files, other services), and is not.
    attempt.sent = !this.#overStdio.has(client);
    this.#writes.set(params, attempt);
    const result = await client.callTool(params, CallToolResultSchema, { signal: options.signal, timeout: options.timeoutMs ?? this.#callTimeoutMs });
    const size = Buffer.byteLength(JSON.stringify(result), 'utf8');
    if (size > this.#maxResultBytes) throw this.#tooLarge(options.tool, size);
    const content = result.content as unknown[];
    if (result.isError) throw new McpToolResultError({ service: this.name, tool: options.tool, content, structuredContent: result.structuredContent });
    return { content, structuredContent: result.structuredContent as Record<string, unknown> | undefined };
  }

  #tooLarge(tool: string | undefined, size?: number): ToolProtocolError {
    return new ToolProtocolError({ service: this.name, tool, code: 'result_too_large', message: `${this.name}/${tool ?? '?'} answered with more than ${this.#maxResultBytes} bytes (MCP_MAX_RESULT_BYTES)`, details: { limit_bytes: this.#maxResultBytes, ...(size ? { size_bytes: size } : {}) } });
  }

  /** Runs `work`, mapping its failure to a ToolCallError and dropping a connection that is gone. */
  async #guard<T>(tool: string | undefined, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ReplyTooLargeError || (error instanceof Error && error.cause instanceof ReplyTooLargeError)) throw this.#tooLarge(tool);
      if (connectionLost(error)) {
        await this.#drop();
        if (this.#overflowed) {
          this.#overflowed = false;
          throw this.#tooLarge(tool);
        }
      }
      throw toToolError(error, { service: this.name, tool, aborted: signal?.aborted ?? false });
    }
  }

  /**
   * Marks a call sent once its request is written into the server's stdin, and unsent again when
   * that write fails (EPIPE: the server had died, the request never reached it). The SDK passes
   * callTool's params on as the message's own, and writes each message with one `stdin.write`
   * inside `send`; its stdin is the transport's child process's (not in the SDK's typings). Should
   * that change, a call is never marked sent, and is sent again as before.
   */
  #markWrites(transport: StdioClientTransport): void {
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      const params = 'params' in message && typeof message.params === 'object' && message.params !== null ? message.params : undefined;
      const attempt = params ? this.#writes.get(params) : undefined;
      const stdin = (transport as unknown as { _process?: { stdin?: Writable | null } })._process?.stdin;
      if (!attempt || !stdin) return send(message);
      const write = stdin.write;
      stdin.write = ((chunk: unknown) => {
        stdin.write = write;
        attempt.sent = true;
        const written = (error?: Error | null) => void (error && (attempt.sent = false));
        return (write as (chunk: unknown, callback: (error?: Error | null) => void) => boolean).call(stdin, chunk, written);
      }) as Writable['write'];
      try {
        return send(message);
      } finally {
        stdin.write = write;
      }
    };
  }

  /** The live client, connecting (and listing tools) when there is none; concurrent callers share one attempt. */
  #connection(): Promise<Client> {
    if (this.#closed) return Promise.reject(new ToolProtocolError({ service: this.name, code: 'source_closed', message: `the MCP source ${this.name} is closed` }));
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<Client> {
    const transport = createTransport(this.#options.server, this.#maxResultBytes + ENVELOPE_BYTES);
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on('data', (chunk: Buffer) => this.#options.onStderr?.(chunk.toString()));
      this.#markWrites(transport);
    }
    const client = new Client({ name: `switchyard-${this.name}`, version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      // A failed refresh keeps the old list; the next call's miss refreshes again.
      void this.refresh().catch(() => undefined);
    });
    // Forget a client whose connection closed (a stdio server exited, the HTTP session ended).
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    try {
      await client.connect(transport);
      this.#watchOverflow(transport);
      await this.#list(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      // close() ran while we connected: do not leave a process or session behind.
      await client.close().catch(() => undefined);
      throw new ToolProtocolError({ service: this.name, code: 'source_closed', message: `the MCP source ${this.name} is closed` });
    }
    this.#client = client;
    if (transport instanceof StdioClientTransport) this.#overStdio.add(client);
    return client;
  }

  async #list(client: Client, signal?: AbortSignal): Promise<void> {
    const listed: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: this.#callTimeoutMs });
      listed.push(...result.tools);
      if (listed.length > this.#maxTools) {
        throw new ToolProtocolError({ service: this.name, code: 'too_many_tools', message: `${this.name} lists more than ${this.#maxTools} tools (MCP_MAX_TOOLS)`, details: { limit: this.#maxTools } });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    if (cursor) throw new ToolProtocolError({ service: this.name, code: 'too_many_pages', message: `${this.name} pages its tool list past ${MAX_LIST_PAGES} pages` });
    this.#tools = new Map(listed.map((tool) => [tool.name, { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Record<string, unknown>, outputSchema: tool.outputSchema as Record<string, unknown> | undefined }]));
    this.#checker.retain([...this.#tools.values()].map((tool) => tool.inputSchema));
    this.#listedAt = performance.now();
    this.#options.onToolsChanged?.(this.tools());
  }

  /**
   * Over stdio an oversized reply closes the connection (the SDK's bounded line buffer): remember
   * why, so the calls it ends fail as too large instead of being retried into the same reply.
   */
  #watchOverflow(transport: Transport): void {
    const report = transport.onerror;
    transport.onerror = (error) => {
      if (/ReadBuffer exceeded/.test(error.message)) this.#overflowed = true;
      report?.(error);
    };
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }
}
