import { z } from 'zod';
import type { Archive, NewEvent } from '../archive/index.ts';
import type { LlmClient } from '../llm/types.ts';

/** Tokens and dollars (known cost) of some LLM work. */
export const SpendSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  dollars: z.number().nonnegative(),
});
export type Spend = z.infer<typeof SpendSchema>;

/**
 * What one optimize process billed beyond what its programs booked: calls that failed (a reply that failed schema
 * validation is paid for), the judge and training-split diagnoses (`unbooked`), and the final official test
 * (`finalTest`). Programs book only what their proposal and evaluation reported; this note keeps the rest, so a
 * run's reported cost is everything the client's ledger saw.
 */
export const LlmSpendNoteSchema = z.object({ unbooked: SpendSchema, finalTest: SpendSchema });
export type LlmSpendNote = z.infer<typeof LlmSpendNoteSchema>;

/** The archive note that carries an {@link LlmSpendNote}. */
export const LLM_SPEND_NOTE = 'llm-spend';

export const ZERO_SPEND: Spend = { promptTokens: 0, completionTokens: 0, dollars: 0 };

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    dollars: a.dollars + b.dollars,
  };
}

/** `a − b`, never below zero (what was billed minus what was booked). */
export function subSpend(a: Spend, b: Spend): Spend {
  return {
    promptTokens: Math.max(0, a.promptTokens - b.promptTokens),
    completionTokens: Math.max(0, a.completionTokens - b.completionTokens),
    dollars: Math.max(0, a.dollars - b.dollars),
  };
}

/** Reads the metered client's ledger and budget (a plain `LlmClient`, such as a test fake, has neither). */
export interface SpendMeter {
  /** Everything the client billed so far; undefined without a ledger. */
  billed(): Spend | undefined;
  /** Calls the budget refused so far. */
  refusals(): number;
  /** The circuit breaker's error once it has opened (calls kept failing the same way). */
  circuitOpen(): Error | undefined;
}

interface Metered {
  ledger: { totals(): { promptTokens: number; completionTokens: number; knownCost: number } };
  budget: { refusals: number };
  breaker: { openError: Error | undefined };
}

export function spendMeter(llm: LlmClient | null): SpendMeter {
  const m = llm as (LlmClient & Partial<Metered>) | null;
  return {
    billed() {
      if (!m?.ledger) return undefined;
      const t = m.ledger.totals();
      return { promptTokens: t.promptTokens, completionTokens: t.completionTokens, dollars: t.knownCost };
    },
    refusals: () => m?.budget?.refusals ?? 0,
    circuitOpen: () => m?.breaker?.openError,
  };
}

/**
 * The spend earlier processes of this run recorded beyond their programs. A process killed before its end wrote
 * no note: its unbooked share is lost (its programs' own cost is not).
 */
export function recordedSpend(archive: Archive): LlmSpendNote {
  let total: LlmSpendNote = { unbooked: ZERO_SPEND, finalTest: ZERO_SPEND };
  for (const e of archive.events()) {
    if (e.type !== 'note' || e.message !== LLM_SPEND_NOTE) continue;
    const parsed = LlmSpendNoteSchema.safeParse(e.data);
    if (parsed.success) {
      total = { unbooked: addSpend(total.unbooked, parsed.data.unbooked), finalTest: addSpend(total.finalTest, parsed.data.finalTest) };
    }
  }
  return total;
}

export function llmSpendEvent(note: LlmSpendNote): NewEvent {
  return { type: 'note', message: LLM_SPEND_NOTE, data: LlmSpendNoteSchema.parse(note) };
}
