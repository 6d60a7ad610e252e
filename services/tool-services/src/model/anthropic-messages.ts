/**
 * Anthropic's Messages API on the offline model: `POST /v1/messages` (JSON, or with `stream: true`
 * its Server-Sent Events: message_start, content_block_start/delta/stop, message_delta with the
 * `stop_reason` and usage, message_stop), answered by the same deterministic model as
 * `/v1/chat/completions`. The request is read (bounded) and put in OpenAI's terms, the reply put
 * back in Anthropic's, so both doors give the same answer and the same token counts:
 *   - `system` is the system message; `tool_result` blocks are tool messages, `tool_use` blocks
 *     tool calls (ids `toolu_…`); `tool_choice` any → required, tool → that function;
 *   - `output_config.format` (json_schema) is `response_format` json_schema;
 *   - `max_tokens` (required, as the API has it) cuts a text answer (`stop_reason: max_tokens`);
 *   - usage: with `cache_control` on the request or a block, the system prompt's tokens are
 *     `cache_creation_input_tokens` on the conversation's first turn and `cache_read_input_tokens`
 *     after it (the prompt repeats it); `input_tokens` is the rest.
 * Errors are in Anthropic's shape, `{type: "error", error: {type, message}}`.
 */
import type { ErrorRequestHandler } from 'express';
import type { ErrorLogger } from '@switchyard/http-kit';
import { z } from 'zod';
import type { ModelReply } from './offline-model.js';
import { openAiErrorMiddleware } from './openai-errors.js';
import { chatCompletionRequest, type ChatCompletionRequest, type ModelLimits } from './schema.js';
import { countTokens } from './words.js';

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const ToolUse = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1).max(128), name: z.string().min(1).max(64), input: z.record(z.string(), z.unknown()) });
const ToolResult = z.looseObject({ type: z.literal('tool_result'), tool_use_id: z.string().min(1).max(128), content: z.union([z.string(), z.array(Text).max(256)]).optional(), is_error: z.boolean().optional() });
const Block = z.discriminatedUnion('type', [Text, ToolUse, ToolResult]);
const Message = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(Block).max(256)]) });

/** The request schema under the given limits (the message and tool counts are checked again in OpenAI's terms). */
export function messagesRequest(limits: ModelLimits) {
  return z.looseObject({
    model: z.string().min(1).max(256),
    max_tokens: z.number().int().positive(),
    system: z.union([z.string(), z.array(Text).max(256)]).optional(),
    messages: z.array(Message).min(1).max(limits.maxMessages),
    tools: z.array(z.looseObject({ name: z.string(), description: z.string().max(4096).optional(), input_schema: z.record(z.string(), z.unknown()) })).max(limits.maxTools).optional(),
    tool_choice: z.looseObject({ type: z.enum(['auto', 'any', 'tool', 'none']), name: z.string().max(64).optional() }).optional(),
    stream: z.boolean().optional(),
    output_config: z.looseObject({ format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish() }).optional(),
    cache_control: z.looseObject({ type: z.literal('ephemeral') }).nullish(),
  });
}
export type MessagesRequest = z.infer<ReturnType<typeof messagesRequest>>;

const textOf = (content: string | { text: string }[] | undefined) => (content === undefined ? '' : typeof content === 'string' ? content : content.map((part) => part.text).join(''));

/** The request in OpenAI's terms, checked by the chat-completions schema (its bounds included). */
export function toCompletionRequest(request: MessagesRequest, limits: ModelLimits): ChatCompletionRequest {
  const messages: unknown[] = [];
  const system = textOf(request.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const message of request.messages) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    if (message.role === 'assistant') {
      const calls = blocks.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } }] : []));
      messages.push({ role: 'assistant', content: text || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const block of blocks) if (block.type === 'tool_result') messages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: textOf(block.content) });
    if (text || blocks.every((block) => block.type !== 'tool_result')) messages.push({ role: 'user', content: text });
  }
  const choice = request.tool_choice;
  const format = request.output_config?.format;
  return chatCompletionRequest(limits).parse({
    model: request.model,
    messages,
    max_tokens: request.max_tokens,
    ...(request.tools ? { tools: request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.input_schema } })) } : {}),
    ...(choice ? { tool_choice: choice.type === 'any' ? 'required' : choice.type === 'tool' ? { type: 'function', function: { name: choice.name ?? '' } } : choice.type } : {}),
    ...(format ? { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } } } : {}),
  });
}

const STOP_REASONS = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' } as const;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** The usage of a reply, the system prompt's tokens cached when the request asked for caching. */
export function anthropicUsage(request: MessagesRequest, reply: ModelReply): AnthropicUsage {
  const asksCache = request.cache_control != null || JSON.stringify(request.messages).includes('"cache_control"') || JSON.stringify(request.system ?? '').includes('"cache_control"');
  const cacheable = asksCache ? Math.min(countTokens(textOf(request.system)), reply.usage.prompt_tokens) : 0;
  const later = request.messages.some((message) => message.role === 'assistant');
  return {
    input_tokens: reply.usage.prompt_tokens - cacheable,
    output_tokens: reply.usage.completion_tokens,
    cache_creation_input_tokens: later ? 0 : cacheable,
    cache_read_input_tokens: later ? cacheable : 0,
  };
}

const toolUseId = (id: string) => `toolu_${id.replace(/^call_/, '')}`;
const messageId = (id: string) => `msg_${id.replace(/^chatcmpl-/, '')}`;

/** The `message` body of a reply. */
export function messageBody(reply: ModelReply, model: string, usage: AnthropicUsage) {
  const content = [...(reply.content !== null ? [{ type: 'text', text: reply.content }] : []), ...reply.toolCalls.map((call) => ({ type: 'tool_use', id: toolUseId(call.id), name: call.name, input: JSON.parse(call.arguments) as unknown }))];
  return { id: messageId(reply.id), type: 'message', role: 'assistant', model, content, stop_reason: STOP_REASONS[reply.finishReason], stop_sequence: null, usage };
}

/** The stream's events, in order, each `{event, data}`: text a word a delta, a tool call's input in pieces. */
export function* messageEvents(reply: ModelReply, model: string, usage: AnthropicUsage): Generator<{ event: string; data: object }> {
  const start = { ...messageBody(reply, model, usage), content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } };
  yield { event: 'message_start', data: { type: 'message_start', message: start } };
  let index = 0;
  if (reply.content !== null) {
    yield { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } };
    for (const piece of reply.content.match(/\S+\s*/g) ?? []) yield { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } } };
    yield { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
    index += 1;
  }
  for (const call of reply.toolCalls) {
    yield { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolUseId(call.id), name: call.name, input: {} } } };
    for (let at = 0; at < call.arguments.length; at += 16) yield { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: call.arguments.slice(at, at + 16) } } };
    yield { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
    index += 1;
  }
  yield { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: STOP_REASONS[reply.finishReason], stop_sequence: null }, usage: { output_tokens: usage.output_tokens } } };
  yield { event: 'message_stop', data: { type: 'message_stop' } };
}

/** Anthropic's error `type` for a status. */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The endpoint's errors as Anthropic gives them: the OpenAI-shaped body of the model's middleware, reshaped. */
export function anthropicErrorMiddleware(logger: ErrorLogger): ErrorRequestHandler {
  const openAi = openAiErrorMiddleware(logger);
  return (error: unknown, req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const inner = (body as { error?: { message?: unknown } } | null)?.error;
      return json(inner ? { type: 'error', error: { type: anthropicErrorType(res.statusCode), message: typeof inner.message === 'string' ? inner.message : 'Error' } } : body);
    };
    openAi(error, req, res, next);
  };
}
