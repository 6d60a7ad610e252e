/**
 * What a turn may spend of its step's `max_tokens`: the budget less the tokens the step used and
 * the prompt this turn sends, sent as the request's `max_tokens`, so a turn cannot write past the
 * budget. The prompt is known only once the model has counted it; it is estimated as the last
 * turn's prompt and reply (which the model counted, and which this prompt repeats) plus a token
 * for every four characters of what was added since (tool results, a correction), the tools'
 * schemas included on the first turn. The check after the turn stays: an estimate may be short.
 */
import type { AgentTranscript } from '@switchyard/pipeline';
import type { ChatMessage, ModelPrices, ModelTool } from '@switchyard/models';

/** Characters taken for one token in the estimate (prose runs about four, JSON and code fewer, so this rounds a little up). */
const CHARS_PER_TOKEN = 4;

const estimate = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

/** The prompt's tokens, estimated (see the module's comment). */
export function estimatedPromptTokens(transcript: AgentTranscript, messages: readonly ChatMessage[], tools: readonly ModelTool[]): number {
  const last = transcript.turns.at(-1);
  if (!last) return estimate(JSON.stringify(messages)) + estimate(JSON.stringify(tools));
  const lastReply = messages.findLastIndex((message) => message.role === 'assistant');
  return last.usage.prompt_tokens + last.usage.completion_tokens + estimate(JSON.stringify(messages.slice(lastReply + 1)));
}

/** The tokens the next reply may have: the budget less what was used and the prompt's estimate (≤ 0: none left). */
export function replyTokensLeft(maxTokens: number, transcript: AgentTranscript, promptTokens: number): number {
  return maxTokens - transcript.usage.prompt_tokens - transcript.usage.completion_tokens - promptTokens;
}

/**
 * The tokens the next reply may have within `max_cost`: the cost left less the prompt's, at the
 * input price (cached tokens are cheaper, so this errs short), over the output price.
 */
export function replyTokensByCost(maxCost: number, costSoFar: number, promptTokens: number, prices: ModelPrices): number {
  const left = maxCost - costSoFar - (promptTokens * prices.input) / 1_000_000;
  if (prices.output === 0) return left >= 0 ? Number.POSITIVE_INFINITY : 0;
  // A hair over, so that a price in decimal (0.0003 - 0.00003) does not lose a token to binary rounding.
  return Math.floor((left * 1_000_000) / prices.output + 1e-9);
}
