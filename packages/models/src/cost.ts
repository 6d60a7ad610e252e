/**
 * What a turn costs, from its model's prices (USD per million tokens) and the tokens it used: the
 * prompt's uncached tokens at the input price, its cached ones at the cached-input price, the reply
 * at the output price.
 */
import type { ModelPrices } from './config.js';
import type { ReplyUsage } from './reply-reader.js';

export function turnCostUsd(prices: ModelPrices, usage: ReplyUsage): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  return ((usage.promptTokens - cached) * prices.input + cached * prices.cachedInput + usage.completionTokens * prices.output) / 1_000_000;
}
