import type { ModelPrice } from './config.ts';
import type { TokenUsage } from './types.ts';

/**
 * Dollars for one reply at `price` ($ per 1M tokens); null when the price is unknown (never 0, which would read
 * as free). Cached prompt tokens are billed at `price.cached`, or at the prompt price when that is not given.
 */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined): number | null {
  if (!price) return null;
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  return (
    ((usage.promptTokens - cached) * price.prompt + cached * (price.cached ?? price.prompt) + usage.completionTokens * price.completion) /
    1_000_000
  );
}
