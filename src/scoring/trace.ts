/**
 * Per-question traces: what a design did for one question and how it scored. Written as `traces.jsonl`
 * by `memsteer eval` and the optimizer; read by diagnosis and the report.
 */

import type { StageFailure } from '../isolate/sandbox-api.ts';

export type { FailureKind, StageFailure } from '../isolate/sandbox-api.ts';

/** Scores of one question. Fields a metric does not apply to are absent. */
export interface QuestionScores {
  /** Binary correctness: type-normalised exact match, else the judge (LLM when configured, token-F1 ≥ threshold offline). */
  correct: boolean;
  /** How `correct` was decided. */
  correctBy: 'exact' | 'llm-judge' | 'f1-threshold';
  /** SQuAD-style token F1 between answer and reference (normalised, unstemmed). */
  f1: number;
  /** LoCoMo's official per-category F1 (only for LoCoMo questions). */
  locomoF1?: number;
  /** Evidence recall@k over the ranked units' verified records, for each k evaluated (keys "1", "5", "10"…). */
  recallAt: Record<string, number>;
  /**
   * Recall at the context token budget: share of gold records among the verified records of the longest prefix of
   * the ranked units whose texts fit the budget (absent without gold evidence or without the trace's budgetRecords).
   */
  recallAtBudget?: number;
  /** Share of gold evidence records the delivered (budget-cut) context verifiably carries. */
  contextRecall: number;
  /** Optional MemSifter-style marginal utility (answer score with memory minus without, DCG-weighted over k). */
  marginalUtility?: number;
}

export interface QuestionTrace {
  /** QA item id. */
  question: string;
  history: string;
  category?: string;
  /** Ranked units (capped, best first) with their verified sources. */
  ranked: Array<{ unit: string; score: number; sources: string[] }>;
  /** Ranked units expanded to verified records, de-duplicated, order kept: what recall@k reads. */
  rankedRecords: string[];
  /** Verified records of the ranked units that fit the context budget: what recall at the budget reads. */
  budgetRecords?: string[];
  /** Declared units that delivered at least one record, in context order. */
  delivered: string[];
  /**
   * Records the delivered context text verifiably carries among the declared units' sources, in context order: what
   * an app importing the design receives.
   */
  deliveredRecords: string[];
  /**
   * `deliveredRecords` as context recall credits them for this question: a gold record cited with a quote counts
   * only when the context also carries the quote (src/scoring/evidence-spans.ts). Absent in traces written before it;
   * readers fall back to `deliveredRecords`.
   */
  creditedRecords?: string[];
  /** Sources the ranked (capped) and declared units claimed that their text does not carry. */
  unverifiedSources?: number;
  contextTokens: number;
  /** The context text (truncated in files past a cap). */
  contextText: string;
  answer: string | null;
  reference: string;
  scores: QuestionScores | null;
  error?: StageFailure;
  /** Milliseconds per stage; `store` is the share of the memory build this question's date group paid. */
  timeMs: { store: number; retrieve: number; context: number; answer: number };
  /** Tool calls by name (bm25.index, bm25.search, embed, llm, countTokens, log…). */
  toolCalls: Record<string, number>;
  /** Lines the design wrote with tools.log (capped). */
  log?: string[];
  /** LLM tokens spent on this question (design's own calls plus the answerer). */
  llmTokens?: { prompt: number; completion: number };
}

/** The records context recall credits for a trace: `creditedRecords`, or `deliveredRecords` in traces written before it. */
export function creditedOf(trace: { deliveredRecords: readonly string[]; creditedRecords?: readonly string[] }): readonly string[] {
  return trace.creditedRecords ?? trace.deliveredRecords;
}
