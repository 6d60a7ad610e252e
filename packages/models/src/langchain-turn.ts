/**
 * The LangChain side of one attempt: the conversation as LangChain messages, sent through its
 * chat-completions model (streamed, usage asked for, its retries off), each chunk handed to the
 * reply reader. Loaded by the client on its first turn, so a service that only reads the model
 * configuration does not pay for loading LangChain at start-up.
 *
 * `ChatOpenAICompletions` is the class `ChatOpenAI` hands chat completions to; it is used
 * directly because `ChatOpenAI` switches some model ids to OpenAI's Responses API, which other
 * OpenAI-compatible servers (and the offline model) do not serve.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAICompletions, type ChatOpenAICompletionsCallOptions } from '@langchain/openai';
import type { ModelConfig } from './config.js';
import { toOpenAiTools, type ChatMessage, type ModelTool } from './messages.js';
import type { ReplyReader } from './reply-reader.js';
import type { ResponseFormat } from './structured-output.js';

export interface AttemptInput {
  config: ModelConfig;
  messages: readonly ChatMessage[];
  tools: readonly ModelTool[];
  maxTokens: number | undefined;
  responseFormat?: ResponseFormat | undefined;
  signal: AbortSignal;
  reader: ReplyReader;
  onToken: ((text: string) => void) | undefined;
  /** Told of every chunk as it arrives (the attempt's idle deadline starts again). */
  onChunk?: (() => void) | undefined;
}

/** Call options of a turn: its reply bound, which LangChain reads only from the model's fields. */
interface TurnCallOptions extends ChatOpenAICompletionsCallOptions {
  maxTokensOfTurn?: number;
}

/**
 * The chat-completions model with `max_tokens` per call: each turn sends what is left of its
 * step's budget, so the bound cannot be a field of a model shared by every turn.
 */
class BudgetedChat extends ChatOpenAICompletions<TurnCallOptions> {
  override invocationParams(options?: this['ParsedCallOptions'], extra?: { streaming?: boolean }): ReturnType<ChatOpenAICompletions['invocationParams']> {
    const params = super.invocationParams(options, extra);
    const max = options?.maxTokensOfTurn;
    if (max === undefined) return params;
    // A reasoning model takes max_completion_tokens (LangChain picks the field by the model id).
    return 'max_completion_tokens' in params ? { ...params, max_completion_tokens: max } : { ...params, max_tokens: max };
  }
}

/**
 * One chat model (and its SDK client, with its connection pool) per configured model, made at its
 * first attempt: a new one per attempt cost as much CPU as the rest of a turn. Each attempt's
 * signal and reply bound are its own (passed to `stream`), so sharing the model shares no state.
 */
const chats = new Map<string, BudgetedChat>();

function chatOf(config: ModelConfig): BudgetedChat {
  const key = JSON.stringify([config.name, config.baseUrl, config.model, config.apiKey ?? '']);
  let chat = chats.get(key);
  if (!chat) {
    chat = new BudgetedChat({
      model: config.model,
      // The offline model takes any key; the SDK refuses to start without one.
      apiKey: config.apiKey ?? 'none',
      configuration: { baseURL: config.baseUrl },
      maxRetries: 0,
      streaming: true,
      streamUsage: true,
    });
    // Configurations are few (MODELS is bounded), and a key may change: a bounded cache.
    if (chats.size >= 64) chats.delete(chats.keys().next().value as string);
    chats.set(key, chat);
  }
  return chat;
}

/** Streams one reply into `reader`; rejects with whatever LangChain or the SDK threw. */
export async function streamAttempt(input: AttemptInput): Promise<void> {
  const chat = chatOf(input.config);
  const runnable = input.tools.length > 0 ? chat.bindTools(toOpenAiTools(input.tools)) : chat;
  const format = input.responseFormat;
  const options: Partial<TurnCallOptions> = {
    signal: input.signal,
    ...(input.maxTokens === undefined ? {} : { maxTokensOfTurn: input.maxTokens }),
    ...(format ? { response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict } } } : {}),
  };
  const stream = await runnable.stream(toLangChainMessages(input.messages), options);
  for await (const chunk of stream) {
    input.onChunk?.();
    const text = input.reader.add(chunk as AIMessageChunk);
    if (text) input.onToken?.(text);
  }
  // LangChain ends an aborted stream quietly; the attempt did not end well.
  if (input.signal.aborted) throw input.signal.reason;
}

/** The conversation as LangChain messages; `assistant` makes a model's own turn (the providers differ there alone). */
export function toLangChainMessages(messages: readonly ChatMessage[], assistant: (message: Extract<ChatMessage, { role: 'assistant' }>) => AIMessage = assistantMessage): BaseMessage[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'system':
        return new SystemMessage(message.content);
      case 'user':
        return new HumanMessage(message.content);
      case 'tool':
        return new ToolMessage({ tool_call_id: message.tool_call_id, content: message.content });
      case 'assistant':
        return assistant(message);
    }
  });
}

/**
 * The calls go in `additional_kwargs.tool_calls`, in OpenAI's form, with `tool_calls: []` so
 * LangChain neither parses them (which would drop a call whose arguments are not JSON) nor
 * re-serialises them: the converter then sends them exactly as given. They are set after
 * construction, where LangChain's constructor would warn about "old packages" for each message.
 */
function assistantMessage(message: Extract<ChatMessage, { role: 'assistant' }>): AIMessage {
  const calls = message.tool_calls ?? [];
  const ai = new AIMessage({ content: message.content ?? '', tool_calls: [] });
  if (calls.length > 0) ai.additional_kwargs.tool_calls = calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));
  return ai;
}
