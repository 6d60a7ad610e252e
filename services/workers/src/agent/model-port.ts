/**
 * What an agent step needs of a model: one turn of a chat with tools, streamed. The workers give
 * it @switchyard/models' client; tests may give their own.
 */
export interface ModelToolCall {
  id: string;
  name: string;
  /** JSON text, as the model wrote it. */
  arguments: string;
}

export type ModelMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ModelToolSpec {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface ModelTurnRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelToolSpec[];
  signal: AbortSignal;
  onToken?(text: string): void;
  /** The turn is asked again: what it streamed so far is void. */
  onRetry?(info: { attempt: number; delayMs: number; error: Error }): void;
}

export interface ModelTurnReply {
  content: string | null;
  toolCalls: ModelToolCall[];
  usage: { promptTokens: number; completionTokens: number };
  model: string;
}

export interface AgentModels {
  turn(request: ModelTurnRequest): Promise<ModelTurnReply>;
}
