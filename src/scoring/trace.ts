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
  /** Evidence recall@k over ranked records, for each k evaluated (keys "1", "5", "10"…). */
  recallAt: Record<string, number>;
  /** Share of gold evidence records delivered in the context. */
  contextRecall: number;
  /** Optional MemSifter-style marginal utility (answer score with memory minus without, DCG-weighted over k). */
  marginalUtility?: number;
}

export interface QuestionTrace {
  /** QA item id. */
  question: string;
  history: string;
  category?: string;
  /** Ranked units (capped, best first) with their provenance. */
  ranked: Array<{ unit: string; score: number; sources: string[] }>;
  /** Ranked units expanded to source records, de-duplicated, order kept: what recall@k reads. */
  rankedRecords: string[];
  /** Units in the context, in order. */
  delivered: string[];
  /** Those units' source records, de-duplicated. */
  deliveredRecords: string[];
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
