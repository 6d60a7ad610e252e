/**
 * Gathers one streamed reply, chunk by chunk, inside its bounds: a reply that goes past one is
 * refused as soon as it does, not after it has all arrived. Tool calls are gathered by their
 * stream index; their arguments stay text.
 */
import type { AIMessageChunk } from '@langchain/core/messages';
import { ModelCallError } from './errors.js';
import type { ToolCall } from './messages.js';

/** Bounds of one reply. */
export interface ReplyBounds {
  /** Bytes (UTF-8) of the reply's text. Default 256 KiB. */
  maxContentBytes: number;
  /** Tool calls in one reply. Default 32. */
  maxToolCalls: number;
  /** Bytes (UTF-8) of one tool call's arguments text. Default 64 KiB. */
  maxArgumentBytes: number;
}

export const DEFAULT_REPLY_BOUNDS: ReplyBounds = { maxContentBytes: 256 * 1024, maxToolCalls: 32, maxArgumentBytes: 64 * 1024 };

/** A tool name as OpenAI allows it; anything else cannot be a tool the engine offered. */
const TOOL_NAME_CHARS = 256;

interface CallInProgress {
  id: string;
  name: string;
  arguments: string;
  argumentBytes: number;
}

/** A reply's tokens; `promptTokens` counts the cached ones too (`cachedTokens` of them read from the server's prompt cache). */
export interface ReplyUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the server's prompt cache (OpenAI's `cached_tokens`, Anthropic's `cache_read_input_tokens`), when it said. */
  cachedTokens?: number;
}

/** One streamed piece in the reader's terms, whatever the provider's wire format. */
export interface ReplyPart {
  text?: string;
  calls?: { index?: number | undefined; id?: string | undefined; name?: string | undefined; args?: string | undefined }[];
  usage?: ReplyUsage;
  finishReason?: string;
  model?: string;
}

export interface GatheredReply {
  content: string | null;
  toolCalls: ToolCall[];
  usage: ReplyUsage;
  finishReason: string | null;
  model: string | undefined;
}

export class ReplyReader {
  private content = '';
  private contentBytes = 0;
  private sawContent = false;
  private readonly calls = new Map<number, CallInProgress>();
  private usage: ReplyUsage = { promptTokens: 0, completionTokens: 0 };
  private finishReason: string | null = null;
  private model: string | undefined;

  constructor(
    private readonly bounds: ReplyBounds,
    private readonly modelName: string,
  ) {}

  /** Takes one chunk; returns its new text (for `onToken`), '' when it has none. */
  add(chunk: AIMessageChunk): string {
    const text = typeof chunk.content === 'string' ? chunk.content : '';
    if (text) this.addText(text);
    for (const piece of chunk.tool_call_chunks ?? []) this.addCallPiece(piece);
    if (chunk.usage_metadata) {
      const cached = chunk.usage_metadata.input_token_details?.cache_read;
      this.usage = { promptTokens: chunk.usage_metadata.input_tokens, completionTokens: chunk.usage_metadata.output_tokens, ...(cached ? { cachedTokens: cached } : {}) };
    }
    const metadata = chunk.response_metadata as { finish_reason?: unknown; model_name?: unknown } | undefined;
    if (typeof metadata?.finish_reason === 'string') this.finishReason = metadata.finish_reason;
    if (typeof metadata?.model_name === 'string' && metadata.model_name) this.model = metadata.model_name.slice(0, TOOL_NAME_CHARS);
    return text;
  }

  /** Takes one piece another provider's stream gave (see anthropic-turn.ts); returns its text. */
  addPart(part: ReplyPart): string {
    if (part.text) this.addText(part.text);
    for (const piece of part.calls ?? []) this.addCallPiece(piece);
    if (part.usage) this.usage = part.usage;
    if (part.finishReason) this.finishReason = part.finishReason;
    if (part.model) this.model = part.model.slice(0, TOOL_NAME_CHARS);
    return part.text ?? '';
  }

  /**
   * The reply gathered; a tool call with no id or no name makes it invalid. A stream that ended
   * with no `finish_reason` was cut (a proxy or the server closed it early): not a reply, but a
   * failure another attempt may get past.
   */
  finish(): GatheredReply {
    if (this.finishReason === null) throw new ModelCallError({ code: 'model_unavailable', message: `model ${this.modelName}: the stream ended before the reply did (no finish_reason)` });
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        if (!call.id || !call.name) throw this.invalid(`tool call ${index} came without ${call.id ? 'a name' : 'an id'}`);
        return { id: call.id, name: call.name, arguments: call.arguments };
      });
    return { content: this.sawContent ? this.content : null, toolCalls, usage: this.usage, finishReason: this.finishReason, model: this.model };
  }

  private addText(text: string): void {
    this.sawContent = true;
    this.contentBytes += Buffer.byteLength(text, 'utf8');
    if (this.contentBytes > this.bounds.maxContentBytes) throw this.invalid(`the reply's text passed ${this.bounds.maxContentBytes} bytes`);
    this.content += text;
  }

  private addCallPiece(piece: { index?: number | undefined; id?: string | undefined; name?: string | undefined; args?: string | undefined }): void {
    const index = piece.index ?? this.calls.size;
    let call = this.calls.get(index);
    if (!call) {
      if (this.calls.size >= this.bounds.maxToolCalls) throw this.invalid(`the reply made more than ${this.bounds.maxToolCalls} tool calls`);
      call = { id: '', name: '', arguments: '', argumentBytes: 0 };
      this.calls.set(index, call);
    }
    if (piece.id) call.id = piece.id.slice(0, TOOL_NAME_CHARS);
    if (piece.name) {
      call.name += piece.name;
      if (call.name.length > TOOL_NAME_CHARS) throw this.invalid(`a tool call's name passed ${TOOL_NAME_CHARS} characters`);
    }
    if (piece.args) {
      call.argumentBytes += Buffer.byteLength(piece.args, 'utf8');
      if (call.argumentBytes > this.bounds.maxArgumentBytes) throw this.invalid(`the arguments of tool call ${call.name || index} passed ${this.bounds.maxArgumentBytes} bytes`);
      call.arguments += piece.args;
    }
  }

  private invalid(what: string): ModelCallError {
    return new ModelCallError({ code: 'model_reply_invalid', message: `model ${this.modelName}: ${what}` });
  }
}
