/**
 * A turn's conversation in the engine's terms, and OpenAI's tool format. Tool-call arguments stay
 * text all the way: the model's own bytes are sent back in the history, even when they are not
 * valid JSON (the engine told the model so in the tool's result). No LangChain here: it is loaded
 * on the first turn (langchain-turn.ts), not when a service reads its configuration.
 */
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
