/**
 * MCP over stdio with a bound on each message rather than on the connection. The SDK's stdio
 * transport closes the connection when its read buffer passes 10 MiB, so one large message (an
 * AceFlow analysis near the seed's 10 MB limit) ends the session and the bridge with it. Here a
 * line longer than the bound is skipped as it streams in, answered with a JSON-RPC error naming
 * its request when its id can be read, and the connection goes on.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@switchyard/http-kit';
import { MAX_MCP_MESSAGE_BYTES } from './message-limits.js';

export interface BoundedStdioOptions {
  /** Default: process.stdin. */
  input?: Readable;
  /** Default: process.stdout. */
  output?: Writable;
  /** Largest message read, in bytes (default MAX_MCP_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects in a message (default MAX_JSON_DEPTH, as over HTTP). */
  maxDepth?: number;
}

/** How much of an oversized line is kept at each end, to find its id. */
const EDGE_BYTES = 512;
const NEWLINE = 0x0a;

/** The request id of a JSON-RPC line seen only at its ends: SDK clients write `id` last, others often first. */
export function idOfTruncatedLine(head: string, tail: string): string | number | null {
  const last = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail);
  const first = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head);
  const raw = last?.[1] ?? first?.[1];
  return raw === undefined ? null : (JSON.parse(raw) as string | number);
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #max: number;
  readonly #maxDepth: number;
  #parts: Buffer[] = [];
  #size = 0;
  /** The ends of a line being skipped for its size. */
  #skipping: { head: Buffer; tail: Buffer } | undefined;

  constructor(options: BoundedStdioOptions = {}) {
    this.#input = options.input ?? process.stdin;
    this.#output = options.output ?? process.stdout;
    this.#max = options.maxMessageBytes ?? MAX_MCP_MESSAGE_BYTES;
    this.#maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  }

  async start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = `${JSON.stringify(message)}\n`;
    if (this.#output.write(line)) return;
    await new Promise<void>((resolve) => this.#output.once('drain', resolve));
  }

  async close(): Promise<void> {
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#parts = [];
    this.#size = 0;
    this.#skipping = undefined;
    this.onclose?.();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (rest.length > 0) {
      const end = rest.indexOf(NEWLINE);
      const piece = end === -1 ? rest : rest.subarray(0, end);
      this.#take(piece);
      if (end === -1) return;
      this.#endLine();
      rest = rest.subarray(end + 1);
    }
  };

  #take(piece: Buffer): void {
    if (this.#skipping) {
      this.#skipping.tail = Buffer.concat([this.#skipping.tail, piece]).subarray(-EDGE_BYTES);
      return;
    }
    if (this.#size + piece.length <= this.#max) {
      this.#parts.push(piece);
      this.#size += piece.length;
      return;
    }
    const sofar = Buffer.concat([...this.#parts, piece]);
    this.#skipping = { head: sofar.subarray(0, EDGE_BYTES), tail: sofar.subarray(-EDGE_BYTES) };
    this.#parts = [];
    this.#size = 0;
  }

  #endLine(): void {
    if (this.#skipping) {
      const { head, tail } = this.#skipping;
      this.#skipping = undefined;
      this.#refuse(idOfTruncatedLine(head.toString('utf8'), tail.toString('utf8')), `The message is larger than ${this.#max} bytes, the most this bridge reads in one message; nothing in it was done`);
      return;
    }
    const bytes = Buffer.concat(this.#parts);
    this.#parts = [];
    this.#size = 0;
    // Counted on the bytes, before JSON.parse spends the event loop on them (as over HTTP, see jsonBody).
    if (jsonDepthExceeds(bytes, this.#maxDepth)) {
      this.#refuse(idOfTruncatedLine(bytes.subarray(0, EDGE_BYTES).toString('utf8'), bytes.subarray(-EDGE_BYTES).toString('utf8')), `The message is nested deeper than ${this.#maxDepth} levels, the most this bridge reads; nothing in it was done`);
      return;
    }
    const line = bytes.toString('utf8').replace(/\r$/, '');
    if (line.trim() === '') return;
    try {
      this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line)));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #refuse(id: string | number | null, message: string): void {
    this.onerror?.(new Error(message));
    // A request whose id could not be read gets nothing: JSON-RPC has no answer to "some request".
    if (id !== null) void this.send({ jsonrpc: '2.0', id, error: { code: -32600, message } }).catch(() => undefined);
  }
}
