/**
 * One attempt against a model speaking Anthropic's Messages API (`provider: anthropic` in MODELS),
 * through LangChain's `ChatAnthropic`: the same conversation, tools, reply bound and answer schema
 * as the OpenAI path (langchain-turn.ts), the same reader and bounds, and the reply said in the
 * same words, so the engine cannot tell the providers apart:
 *   - the first system message is the request's `system`; tool results go back as `tool_result`
 *     blocks (LangChain joins them into one user message, as the API wants);
 *   - each request's `max_tokens` is what the turn was given (the API requires one: without a
 *     bound from the turn, the model's `maxOutputTokens`, else 4096);
 *   - an answer schema goes as `output_config.format` (`json_schema`), Anthropic's structured outputs;
 *   - `cache_control: {type: "ephemeral"}` asks for prompt caching, so the next turn, which repeats
 *     this one's prompt, reads it from the cache; the tokens read so count as `cachedTokens`;
 *   - `stop_reason` is told as OpenAI's `finish_reason` (end_turn → stop, tool_use → tool_calls,
 *     max_tokens → length), usage as prompt tokens (cached ones included) and completion tokens.
 * Loaded on the first turn of a model of this provider only.
 */
import { ChatAnthropicMessages, type ChatAnthropicCallOptions } from '@langchain/anthropic';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { toLangChainMessages, type AttemptInput } from './langchain-turn.js';
import type { ChatMessage } from './messages.js';
import type { ReplyPart } from './reply-reader.js';

/** The API requires `max_tokens`; this is sent when neither the turn nor the model gives one. */
const FALLBACK_MAX_TOKENS = 4096;

const STOP_REASONS: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length', refusal: 'content_filter', pause_turn: 'stop' };

interface TurnCallOptions extends ChatAnthropicCallOptions {
  maxTokensOfTurn?: number;
}

/** The Messages model with `max_tokens` per call: each turn sends what is left of its step's budget. */
class BudgetedAnthropic extends ChatAnthropicMessages<TurnCallOptions> {
  override invocationParams(options?: this['ParsedCallOptions']): ReturnType<ChatAnthropicMessages['invocationParams']> {
    const params = super.invocationParams(options);
    return options?.maxTokensOfTurn === undefined ? params : { ...params, max_tokens: options.maxTokensOfTurn };
  }
}

/** One chat model per configured model (its SDK client and connection pool with it); a turn's bound and schema go per call. */
const chats = new Map<string, BudgetedAnthropic>();

function chatOf(config: AttemptInput['config']): BudgetedAnthropic {
  const key = JSON.stringify([config.name, config.baseUrl, config.model, config.apiKey ?? '']);
  let chat = chats.get(key);
  if (!chat) {
    chat = new BudgetedAnthropic({
      model: config.model,
      // The offline model takes any key; the SDK refuses to start without one.
      apiKey: config.apiKey ?? 'none',
      anthropicApiUrl: config.baseUrl,
      maxRetries: 0,
      streaming: true,
      streamUsage: true,
      maxTokens: config.maxOutputTokens ?? FALLBACK_MAX_TOKENS,
    });
    if (chats.size >= 64) chats.delete(chats.keys().next().value as string);
    chats.set(key, chat);
  }
  return chat;
}

/** Streams one reply into `reader`; rejects with whatever LangChain or the SDK threw. */
export async function streamAttempt(input: AttemptInput): Promise<void> {
  const chat = chatOf(input.config);
  const tools = input.tools.map((tool) => ({ name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), input_schema: tool.parameters as { type: 'object' } }));
  const runnable = tools.length > 0 ? chat.bindTools(tools) : chat;
  const format = input.responseFormat;
  const options: Partial<TurnCallOptions> = {
    signal: input.signal,
    cache_control: { type: 'ephemeral' },
    ...(format ? { outputConfig: { format: { type: 'json_schema', schema: format.schema } } } : {}),
    ...(input.maxTokens === undefined ? {} : { maxTokensOfTurn: input.maxTokens }),
  };
  const stream = await runnable.stream(toAnthropicMessages(input.messages), options);
  const usage = { input: 0, cached: 0, output: 0 };
  for await (const chunk of stream) {
    input.onChunk?.();
    const text = input.reader.addPart(partOf(chunk as AIMessageChunk, usage));
    if (text) input.onToken?.(text);
  }
  if (input.signal.aborted) throw input.signal.reason;
}

/** A streamed chunk in the reader's terms; usage is gathered over the stream (the start says the input, the end the output). */
function partOf(chunk: AIMessageChunk, usage: { input: number; cached: number; output: number }): ReplyPart {
  const part: ReplyPart = {};
  const text = typeof chunk.content === 'string' ? chunk.content : chunk.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
  if (text) part.text = text;
  if (chunk.tool_call_chunks?.length) part.calls = chunk.tool_call_chunks;
  const metadata = chunk.usage_metadata;
  if (metadata) {
    if (metadata.input_tokens > 0) {
      usage.input = metadata.input_tokens;
      usage.cached = metadata.input_token_details?.cache_read ?? 0;
    }
    usage.output = Math.max(usage.output, metadata.output_tokens);
    part.usage = { promptTokens: usage.input, completionTokens: usage.output, ...(usage.cached > 0 ? { cachedTokens: usage.cached } : {}) };
  }
  const kwargs = chunk.additional_kwargs as { stop_reason?: unknown; model?: unknown };
  if (typeof kwargs.stop_reason === 'string') part.finishReason = STOP_REASONS[kwargs.stop_reason] ?? kwargs.stop_reason;
  if (typeof kwargs.model === 'string') part.model = kwargs.model;
  return part;
}

/**
 * The conversation as LangChain messages for ChatAnthropic. A tool call's arguments go as the
 * `tool_use` block's `input`, which the API wants as an object: arguments that are not a JSON
 * object (the engine told the model so in the call's result) go as `{}`.
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): BaseMessage[] {
  return toLangChainMessages(messages, (message) => new AIMessage({ content: message.content ?? '', tool_calls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: objectOf(call.arguments), type: 'tool_call' as const })) }));
}

function objectOf(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text || '{}') as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
