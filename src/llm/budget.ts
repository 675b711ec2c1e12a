import { countTokens } from '../text/text.ts';
import type { BudgetLimits, ModelPrice } from './config.ts';
import { BudgetExceededError } from './errors.ts';
import { costOf } from './pricing.ts';
import type { ChatMessage, LlmRole } from './types.ts';

/** Per-message framing tokens the chat format adds (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

/** A call's estimated size before it is sent: prompt from our token count, completion = the most it may produce. */
export interface CallEstimate {
  tokens: number;
  /** null when the model has no price. */
  dollars: number | null;
}

/** Estimates a request with `countTokens` (plus framing and any schema text sent along) and its `maxTokens`. */
export function estimateCall(
  messages: readonly ChatMessage[],
  extraPromptText: string,
  maxTokens: number,
  price: ModelPrice | undefined,
): CallEstimate {
  let prompt = countTokens(extraPromptText);
  for (const m of messages) prompt += countTokens(m.content) + MESSAGE_OVERHEAD;
  return { tokens: prompt + maxTokens, dollars: costOf({ promptTokens: prompt, completionTokens: maxTokens, cachedTokens: 0 }, price) };
}

/**
 * The hard spending limit. Before a request goes out, its estimate is reserved; the reservation is replaced by the
 * real spend when the reply arrives. So concurrent calls cannot all slip under the limit together.
 */
export class Budget {
  private spentTokens = 0;
  private spentDollars = 0;
  private reservedTokens = 0;
  private reservedDollars = 0;
  private refused = 0;

  constructor(readonly limits: BudgetLimits) {}

  get spent(): { tokens: number; dollars: number } {
    return { tokens: this.spentTokens, dollars: this.spentDollars };
  }

  /** Calls refused so far because they would have crossed a limit: work that did not happen for lack of budget. */
  get refusals(): number {
    return this.refused;
  }

  /** What is left (Infinity where there is no limit), counting calls in flight as spent. */
  get remaining(): { tokens: number; dollars: number } {
    return {
      tokens: (this.limits.maxTokens ?? Infinity) - this.spentTokens - this.reservedTokens,
      dollars: (this.limits.maxDollars ?? Infinity) - this.spentDollars - this.reservedDollars,
    };
  }

  /**
   * Reserves `estimate` or throws BudgetExceededError when it would cross a limit. A dollar limit with an unknown
   * price cannot be checked here; `createLlmClient` refuses that configuration up front.
   * Returns the function that settles the reservation with what was really spent.
   */
  reserve(role: LlmRole, estimate: CallEstimate): (actual: { tokens: number; dollars: number | null }) => void {
    const { maxTokens, maxDollars } = this.limits;
    const committedTokens = this.spentTokens + this.reservedTokens;
    if (maxTokens !== undefined && committedTokens + estimate.tokens > maxTokens) {
      this.refused++;
      throw new BudgetExceededError(role, 'tokens', committedTokens, estimate.tokens, maxTokens);
    }
    const committedDollars = this.spentDollars + this.reservedDollars;
    const dollars = estimate.dollars ?? 0;
    if (maxDollars !== undefined && committedDollars + dollars > maxDollars) {
      this.refused++;
      throw new BudgetExceededError(role, 'dollars', committedDollars, dollars, maxDollars);
    }
    this.reservedTokens += estimate.tokens;
    this.reservedDollars += dollars;
    let settled = false;
    return (actual) => {
      if (settled) return;
      settled = true;
      this.reservedTokens -= estimate.tokens;
      this.reservedDollars -= dollars;
      this.spentTokens += actual.tokens;
      this.spentDollars += actual.dollars ?? 0;
    };
  }
}
