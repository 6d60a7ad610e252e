/**
 * The CKB connection with seed 001's fallback rules. CKB is an MCP server (started as a child over
 * stdio, or at a URL over Streamable HTTP); before each use its health is checked (getStatus), and
 * connecting, the check and every call must each finish within the timeout (5 s). A timeout, an
 * MCP error or a failed check puts CKB in a cooldown (60 s) during which it is not contacted and
 * callers fall back to the local graph, told the reason and the seconds left.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { systemClock, type Clock } from '../clock.js';
import { ckbIntegrationSchema, type CkbIntegration, type CkbIntegrationInput } from '../config.js';
import { callGraphReply, CKB_TOOLS, findReferencesReply, isHealthy, searchSymbolsReply, statusReply, type CallGraphReply, type CkbSymbol } from './protocol.js';

export type CkbFallbackReason = 'connection_timeout' | 'mcp_error' | 'health_check_failed' | 'cooldown' | 'disabled';
type FailureReason = Exclude<CkbFallbackReason, 'cooldown' | 'disabled'>;

/** What a caller reports about CKB for one answer. */
export interface CkbStatus {
  available: boolean;
  reason?: CkbFallbackReason;
  lastError?: string;
  cooldownRemainingS?: number;
}

export class CkbError extends Error {
  override name = 'CkbError';
  readonly reason: FailureReason;
  constructor(reason: FailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** CKB's tools, for one answer; any call may throw (hand the error to `CkbClient.fail`). */
export interface CkbApi {
  searchSymbols(query: string, limit?: number): Promise<CkbSymbol[]>;
  callGraph(symbolId: string, direction: 'callers' | 'callees' | 'both', depth: number): Promise<CallGraphReply>;
  references(symbolId: string, limit?: number): Promise<{ fileId: string; startLine?: number | undefined }[]>;
}

export interface CkbClientOptions {
  clock?: Clock;
  /** The workspace root: the stdio child's working directory unless the config names one. */
  root?: string;
}

type Phase = 'health' | 'call';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CkbError('connection_timeout', `Connection timeout after ${ms}ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function textOf(result: object): string {
  const raw = (result as { content?: unknown }).content;
  const content = Array.isArray(raw) ? (raw as { type?: string; text?: string }[]) : [];
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

export class CkbClient {
  readonly #config: CkbIntegration | undefined;
  readonly #clock: Clock;
  readonly #root: string | undefined;
  #client: Client | undefined;
  #connecting: Promise<Client> | undefined;
  #cooldownUntil = Number.NEGATIVE_INFINITY;
  #lastError: string | undefined;
  #stderrTail = '';

  /** @param config seed 001's ckb_integration; undefined (or neither command nor url) means disabled */
  constructor(config: CkbIntegrationInput | undefined, options: CkbClientOptions = {}) {
    this.#config = config ? ckbIntegrationSchema.parse(config) : undefined;
    this.#clock = options.clock ?? systemClock;
    this.#root = options.root;
  }

  get enabled(): boolean {
    return !!this.#config?.enabled && !!(this.#config.command || this.#config.url);
  }

  /** The state as it stands, without contacting CKB: disabled, cooling down, or worth a try. */
  peek(): CkbStatus {
    if (!this.enabled) return { available: false, reason: 'disabled' };
    const remainingMs = this.#cooldownUntil - this.#clock.now();
    if (remainingMs > 0) {
      return { available: false, reason: 'cooldown', cooldownRemainingS: Math.min(60, Math.ceil(remainingMs / 1000)), ...(this.#lastError ? { lastError: this.#lastError } : {}) };
    }
    return { available: true };
  }

  /** Checks CKB (unless disabled or cooling down) and hands out its tools when it is healthy. */
  async open(): Promise<{ status: CkbStatus; api?: CkbApi }> {
    const peeked = this.peek();
    if (!peeked.available) return { status: peeked };
    try {
      const client = await this.#connect();
      const reply = await this.#call(client, CKB_TOOLS.status, {}, statusReply, 'health');
      if (!isHealthy(reply)) throw new CkbError('health_check_failed', `CKB reports status "${reply.status ?? 'unknown'}"`);
      this.#lastError = undefined;
      return { status: { available: true }, api: this.#api(client) };
    } catch (error) {
      return { status: this.fail(error, 'health') };
    }
  }

  /** Records a failure, starts the cooldown, and answers the status to report for this call. */
  fail(error: unknown, phase: Phase = 'call'): CkbStatus {
    const config = this.#config;
    const timeoutMs = config?.timeout_ms ?? 5000;
    let reason: FailureReason;
    let message: string;
    if (error instanceof CkbError) {
      reason = error.reason;
      message = error.message;
    } else if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      reason = 'connection_timeout';
      message = `Connection timeout after ${timeoutMs}ms`;
    } else {
      reason = phase === 'health' ? 'health_check_failed' : 'mcp_error';
      message = error instanceof Error ? error.message : String(error);
      const stderr = this.#stderrTail.trim();
      if (phase === 'health' && stderr) message += ` (CKB stderr: ${stderr.slice(-300)})`;
    }
    const cooldownS = config?.cooldown_s ?? 60;
    this.#cooldownUntil = this.#clock.now() + cooldownS * 1000;
    this.#lastError = message;
    void this.#disconnect();
    return { available: false, reason, lastError: message, cooldownRemainingS: cooldownS };
  }

  async close(): Promise<void> {
    await this.#disconnect();
  }

  async #disconnect(): Promise<void> {
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    this.#connecting = undefined;
    await client?.close().catch(() => undefined);
  }

  #connect(): Promise<Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #open(): Promise<Client> {
    const config = this.#config as CkbIntegration;
    const client = new Client({ name: 'switchyard-code-intel', version: '0.1.0' });
    let transport;
    if (config.url) {
      transport = new StreamableHTTPClientTransport(new URL(config.url));
    } else {
      const cwd = config.cwd ?? this.#root;
      transport = new StdioClientTransport({ command: config.command as string, args: config.args, stderr: 'pipe', ...(config.env ? { env: config.env } : {}), ...(cwd ? { cwd } : {}) });
      this.#stderrTail = '';
      transport.stderr?.on('data', (data: Buffer) => {
        this.#stderrTail = (this.#stderrTail + data.toString('utf8')).slice(-2000);
      });
    }
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    try {
      await withTimeout(client.connect(transport), config.url ? config.timeout_ms : Math.max(config.timeout_ms, config.start_timeout_ms ?? 0));
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    this.#client = client;
    return client;
  }

  async #call<S extends z.ZodType>(client: Client, name: string, args: Record<string, unknown>, schema: S, phase: Phase): Promise<z.output<S>> {
    const timeoutMs = this.#config?.timeout_ms ?? 5000;
    const failure: FailureReason = phase === 'health' ? 'health_check_failed' : 'mcp_error';
    const result = await withTimeout(client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }), timeoutMs);
    if (result.isError) throw new CkbError(failure, `${name} failed: ${textOf(result).slice(0, 300)}`);
    let payload: unknown = (result as { structuredContent?: unknown }).structuredContent;
    if (payload === undefined) {
      try {
        payload = JSON.parse(textOf(result));
      } catch {
        throw new CkbError(failure, `${name} answered text that is not JSON`);
      }
    }
    const direct = schema.safeParse(payload);
    if (direct.success) return direct.data;
    // CKB wraps answers in an envelope ({data, meta, ...}) in some versions.
    const data = typeof payload === 'object' && payload !== null ? (payload as { data?: unknown }).data : undefined;
    const wrapped = schema.safeParse(data);
    if (wrapped.success) return wrapped.data;
    throw new CkbError(failure, `${name} answered an unexpected shape: ${direct.error.issues[0]?.message ?? 'invalid'}`);
  }

  #api(client: Client): CkbApi {
    return {
      searchSymbols: async (query, limit = 20) => (await this.#call(client, CKB_TOOLS.searchSymbols, { query, limit }, searchSymbolsReply, 'call')).symbols,
      callGraph: (symbolId, direction, depth) => this.#call(client, CKB_TOOLS.callGraph, { symbolId, direction, depth }, callGraphReply, 'call'),
      references: async (symbolId, limit = 100) => (await this.#call(client, CKB_TOOLS.references, { symbolId, limit }, findReferencesReply, 'call')).references.map((r) => r.location),
    };
  }
}
