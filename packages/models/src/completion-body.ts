/**
 * A model reply in OpenAI's wire format: the `chat.completion` body, and the `chat.completion.chunk`
 * sequence of a stream. `created` is fixed at 0 so the same request gives the same bytes. The
 * reference services' offline model and the scripted test model both answer with it.
 */

export interface CompletionToolCall {
  id: string;
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One reply, before it is put in the wire format. */
export interface CompletionReply {
  /** The completion's id, e.g. `chatcmpl-…`. */
  id: string;
  content: string | null;
  toolCalls: CompletionToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  usage: CompletionUsage;
}

export const CREATED = 0;

/** Characters of a tool call's arguments per streamed chunk. */
const ARGUMENT_PIECE_CHARS = 16;

export function completionBody(reply: CompletionReply, model: string) {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          refusal: null,
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
  };
}

/**
 * The chunks of a streamed reply, in order: the role, then a piece of content per word (its
 * trailing space included) or, per tool call, its id and name then its arguments in pieces; then
 * the `finish_reason`; then, when asked, a chunk with `usage` and no choices.
 */
export function* completionChunks(reply: CompletionReply, model: string, includeUsage: boolean): Generator<object> {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  yield chunk({ role: 'assistant', content: reply.content === null ? null : '' });
  if (reply.content !== null) for (const piece of reply.content.match(/\S+\s*/g) ?? []) yield chunk({ content: piece });
  for (const [index, call] of reply.toolCalls.entries()) {
    yield chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (let at = 0; at < call.arguments.length; at += ARGUMENT_PIECE_CHARS) {
      yield chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(at, at + ARGUMENT_PIECE_CHARS) } }] });
    }
  }
  yield chunk({}, reply.finishReason);
  if (includeUsage) yield { id: reply.id, object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage: reply.usage };
}
