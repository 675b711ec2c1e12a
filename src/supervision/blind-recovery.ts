import { z } from 'zod';
import type { SourceRecord } from '../../sandbox/contract.ts';
import type { AnswerType } from '../history/record.ts';
import { answersMatch } from '../scoring/answer-match.ts';

/** What a blind reader sees: the question, its answer type and the bundle's records; never the plan or the answer. */
export interface BlindInput {
  question: string;
  answerType: AnswerType;
  records: SourceRecord[];
  /**
   * ISO day the question is asked on, for a reader that resolves the dates it names against it. The offline reader
   * reads questions whose dates are written in full (rule-based/asked-dates.ts) and does not need it.
   */
  date?: string;
}

/** The blind reader's reply (the LLM reader returns it as structured output). */
export const BlindReadingSchema = z.object({
  answerable: z.boolean(),
  answer: z.string(),
  /** Ids of the records the answer rests on. */
  citations: z.array(z.string()),
});
export type BlindReading = z.infer<typeof BlindReadingSchema>;

/** A reader that tries to recover the reference answer without seeing it. */
export interface BlindReader {
  /** What it is (`llm:<model>`, `localise+extract@1`): recorded with every item it passed. */
  readonly name: string;
  read(input: BlindInput): Promise<BlindReading & { usage?: { promptTokens: number; completionTokens: number } }>;
}

export type BlindRejection = 'blind:unanswerable' | 'blind:answer-mismatch' | 'blind:missing-citation';

/**
 * The recovery gate: the reader must declare the question answerable, give the reference answer under the
 * answer type's equality (answersMatch), and cite every evidence record (extra citations are allowed).
 */
export function checkBlindReading(
  reading: BlindReading,
  reference: { answer: string; answerType: AnswerType; evidenceRecords: readonly string[] },
): { ok: true } | { ok: false; reason: BlindRejection; detail: string } {
  if (!reading.answerable) return { ok: false, reason: 'blind:unanswerable', detail: 'the reader found the question unanswerable' };
  if (!answersMatch(reading.answer, reference.answer, reference.answerType)) {
    return {
      ok: false,
      reason: 'blind:answer-mismatch',
      detail: `reader said "${reading.answer.slice(0, 80)}", reference "${reference.answer.slice(0, 80)}"`,
    };
  }
  const cited = new Set(reading.citations);
  const missing = reference.evidenceRecords.filter((r) => !cited.has(r));
  if (missing.length) return { ok: false, reason: 'blind:missing-citation', detail: `evidence not cited: ${missing.join(', ')}` };
  return { ok: true };
}
