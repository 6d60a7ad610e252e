/**
 * The deterministic offline model: the same request always gives the same reply, byte for byte.
 *
 * Rule, read from the conversation since its last user message:
 * - Tools offered, `tool_choice` not `none`, and no tool result yet → tool calls: every tool whose
 *   name or description shares a content word with the last user message (several in parallel),
 *   or the first tool when none does; with `parallel_tool_calls: false`, only the best match.
 *   `tool_choice: required` calls tools even after results; `{function: {name}}` calls that one.
 * - Otherwise → a final answer: with tool results, one line per result (its tool and the start of
 *   its content); without, a short reply naming the prompt's topic. With `response_format`
 *   `json_schema`, JSON built from that schema alone (structured-answer.ts); else as JSON
 *   (`{answer, sources}`) when `response_format` is `json_object` or a system message asks for JSON.
 * - `max_tokens` (or `max_completion_tokens`) cuts a text answer to that many words (`length`).
 * - `usage`: words (runs of non-space) of every message read, tool calls' names and arguments
 *   included, and of the reply.
 */
import { createHash } from 'node:crypto';
import type { CompletionReply, CompletionUsage } from '@switchyard/models/wire';
import { argumentsFor } from './arguments.js';
import { structuredAnswer } from './structured-answer.js';
import { textOf, type ChatCompletionRequest, type ChatMessage, type FunctionTool } from './schema.js';
import { contentWords, countTokens, topicOf, wordsMatch } from './words.js';

/** The offline model's reply: the wire format's reply (see @switchyard/models). */
export type ModelReply = CompletionReply;
export type ModelUsage = CompletionUsage;

/** Words of a tool result quoted in the final answer. */
const QUOTED_RESULT_WORDS = 24;

export function replyTo(request: ChatCompletionRequest): ModelReply {
  const digest = createHash('sha256').update(JSON.stringify([request.model, request.messages, request.tools ?? null, request.tool_choice ?? null, request.response_format ?? null])).digest('hex');
  const turn = currentTurn(request.messages);
  const toolCalls = chooseTools(request, turn).map((tool, index) => ({
    id: `call_${createHash('sha256').update(`${digest}:${index}`).digest('hex').slice(0, 24)}`,
    name: tool.function.name,
    arguments: JSON.stringify(argumentsFor(tool.function.parameters, topicOf(turn.prompt))),
  }));
  const promptTokens = request.messages.reduce((sum, message) => sum + messageTokens(message), 0);
  if (toolCalls.length > 0) {
    const completion = toolCalls.reduce((sum, call) => sum + countTokens(`${call.name} ${call.arguments}`), 0);
    return { id: `chatcmpl-${digest.slice(0, 29)}`, content: null, toolCalls, finishReason: 'tool_calls', usage: usage(promptTokens, completion) };
  }
  const full = finalAnswer(request, turn);
  const limit = request.max_completion_tokens ?? request.max_tokens ?? Infinity;
  const words = full.split(' ');
  const content = words.length > limit ? words.slice(0, limit).join(' ') : full;
  return { id: `chatcmpl-${digest.slice(0, 29)}`, content, toolCalls: [], finishReason: words.length > limit ? 'length' : 'stop', usage: usage(promptTokens, countTokens(content)) };
}

interface Turn {
  /** Text of the last user message ('' when there is none). */
  prompt: string;
  /** Tool results after it, with the name of the tool each answers. */
  results: { name: string; content: string }[];
}

function currentTurn(messages: readonly ChatMessage[]): Turn {
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  const prompt = lastUser >= 0 ? textOf((messages[lastUser] as Extract<ChatMessage, { role: 'user' }>).content) : '';
  const names = new Map<string, string>();
  const results: Turn['results'] = [];
  for (const message of messages.slice(lastUser + 1)) {
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    if (message.role === 'tool') results.push({ name: names.get(message.tool_call_id) ?? 'tool', content: textOf(message.content) });
  }
  return { prompt, results };
}

function chooseTools(request: ChatCompletionRequest, turn: Turn): FunctionTool[] {
  const tools = request.tools ?? [];
  const choice = request.tool_choice ?? 'auto';
  if (tools.length === 0 || choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((tool) => tool.function.name === choice.function.name);
  if (choice === 'auto' && turn.results.length > 0) return [];
  const promptWords = new Set(contentWords(turn.prompt));
  const scored = tools.map((tool) => {
    const toolWords = contentWords(`${tool.function.name} ${tool.function.description ?? ''}`);
    const score = [...promptWords].filter((word) => toolWords.some((toolWord) => wordsMatch(word, toolWord))).length;
    return { tool, score };
  });
  const matching = scored.filter((entry) => entry.score > 0);
  if (matching.length === 0) return tools.slice(0, 1);
  if (request.parallel_tool_calls === false) return [matching.reduce((best, entry) => (entry.score > best.score ? entry : best)).tool];
  return matching.map((entry) => entry.tool);
}

function wantsJson(request: ChatCompletionRequest): boolean {
  const format = request.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') return true;
  return request.messages.some((message) => (message.role === 'system' || message.role === 'developer') && /\bjson\b/i.test(textOf(message.content)));
}

/** The schema of `response_format: {type: "json_schema", json_schema: {schema}}`, when sent. */
function jsonSchemaOf(request: ChatCompletionRequest): unknown {
  const format = request.response_format;
  if (format?.type !== 'json_schema') return undefined;
  const spec = format.json_schema as { schema?: unknown } | undefined;
  return typeof spec?.schema === 'object' && spec.schema !== null ? spec.schema : undefined;
}

function finalAnswer(request: ChatCompletionRequest, turn: Turn): string {
  const topic = topicOf(turn.prompt);
  const sources = turn.results.map((result) => ({ tool: result.name, summary: firstWords(result.content, QUOTED_RESULT_WORDS) }));
  const schema = jsonSchemaOf(request);
  if (schema !== undefined) return JSON.stringify(structuredAnswer(schema, { topic, sources }));
  if (wantsJson(request)) {
    const answer = sources.length > 0 ? `Summary of ${sources.length} tool result${sources.length === 1 ? '' : 's'} about ${topic}.` : `Offline answer about ${topic}.`;
    return JSON.stringify({ answer, sources });
  }
  if (sources.length === 0) {
    return `You asked about ${topic}. This is the offline reference model: it answers the same way every time, with no network, and calls the tools it is offered when their names or descriptions match the request.`;
  }
  return [`Here is what the tools found about ${topic}:`, ...sources.map((source) => `- ${source.tool}: ${source.summary}`)].join(' ');
}

function firstWords(text: string, count: number): string {
  const words = text.trim().split(/\s+/);
  return words.length > count ? `${words.slice(0, count).join(' ')} ...` : words.join(' ');
}

function messageTokens(message: ChatMessage): number {
  const calls = message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => `${call.function.name} ${call.function.arguments}`).join(' ') : '';
  return countTokens(`${textOf(message.content)} ${calls}`);
}

function usage(prompt: number, completion: number): ModelUsage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
