/**
 * A turn's conversation in the engine's terms, and its translation to LangChain's messages and
 * OpenAI's tool format. Tool-call arguments stay text all the way: the model's own bytes are sent
 * back in the history, even when they are not valid JSON (the engine told the model so in the
 * tool's result).
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';

export interface ToolCall {
  /** The model's id of the call; a tool result answers it by this id. */
  id: string;
  name: string;
  /** JSON text, as the model sent it (validated by the engine against the tool's schema). */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool the model may call: its name, what it does, and its arguments' JSON Schema. */
export interface ModelTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** zod of a {@link ToolCall}, for transcripts read back from storage. */
export const ToolCallSchema = z.object({ id: z.string().min(1).max(256), name: z.string().min(1).max(256), arguments: z.string() });

/** zod of a {@link ChatMessage}, for transcripts read back from storage. */
export const ChatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'user']), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable(), tool_calls: z.array(ToolCallSchema).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1).max(256), content: z.string() }),
]);

/** An OpenAI function tool: the shape `bindTools` passes through as it is. */
export interface OpenAiFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

export function toOpenAiTools(tools: readonly ModelTool[]): OpenAiFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, ...(tool.description === undefined ? {} : { description: tool.description }), parameters: tool.parameters },
  }));
}

export function toLangChainMessages(messages: readonly ChatMessage[]): BaseMessage[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'system':
        return new SystemMessage(message.content);
      case 'user':
        return new HumanMessage(message.content);
      case 'tool':
        return new ToolMessage({ tool_call_id: message.tool_call_id, content: message.content });
      case 'assistant':
        return assistantMessage(message);
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
