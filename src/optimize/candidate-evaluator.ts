import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import type { EvalSummary } from '../scoring/summary.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import type { Provenance } from '../diagnose/provenance.ts';
import type { QAItem } from '../history/record.ts';
import { type Objective, RANKING_DEPTH } from '../config/run-options.ts';

/** What the search maximises (declared with the other shared run options). */
export type { Objective } from '../config/run-options.ts';

/** The question sets of a run: train drives diagnosis, val drives acceptance, test is only reported. */
export type QuestionSplit = 'train' | 'val' | 'test';

/** One evaluation of a program on one split. */
export interface CandidateEvaluation {
  traces: QuestionTrace[];
  summary: EvalSummary;
  /** Per question fitness under the objective, keyed `<history>/<question id>`. */
  perQuestion: Record<string, number>;
  /** Mean of `perQuestion`. */
  fitness: number;
  /** Which records the program's memory holds (for storage-failure diagnosis). */
  provenance: Provenance;
  /** The evaluation cache key. */
  key: string;
  cached: boolean;
  /** LLM tokens spent (design calls + answerer). */
  tokens: { prompt: number; completion: number };
  ms: number;
}

/** Evaluates compiled programs on all of a run's question splits, the official test included. */
export interface CandidateEvaluator {
  readonly questions: Readonly<Record<QuestionSplit, readonly QAItem[]>>;
  evaluate(program: CompiledProgram, split: QuestionSplit): Promise<CandidateEvaluation>;
}

/** The splits a search may see: train drives diagnosis, val drives acceptance. */
export type SearchSplit = Exclude<QuestionSplit, 'test'>;

/**
 * What the search loop gets: an evaluator whose type has no test split, so nothing a search does (and nothing a
 * proposer is shown) can depend on the official questions. They are evaluated once, after the search, outside it.
 */
export interface SearchEvaluator {
  readonly questions: Readonly<Record<SearchSplit, readonly QAItem[]>>;
  evaluate(program: CompiledProgram, split: SearchSplit): Promise<CandidateEvaluation>;
}

/**
 * The search's view of a run's evaluator: train and val only. The test questions are not reachable through it, not
 * even by a cast: `questions` holds no test split and asking for one throws.
 */
export function searchSplitsOnly(evaluator: CandidateEvaluator): SearchEvaluator {
  const questions = Object.freeze({ train: evaluator.questions.train, val: evaluator.questions.val });
  return {
    questions,
    evaluate(program, split) {
      if (split !== 'train' && split !== 'val') throw new Error(`the search asked to evaluate the ${String(split)} split`);
      return evaluator.evaluate(program, split);
    },
  };
}

/** A question's fitness under the objective; a question whose design failed scores 0. */
export function questionFitness(trace: QuestionTrace, objective: Objective): number {
  if (trace.error || !trace.scores) return 0;
  switch (objective) {
    case 'evidence':
      return trace.scores.contextRecall;
    case 'ranking':
      return trace.scores.recallAt[String(RANKING_DEPTH)] ?? 0;
    case 'accuracy':
      return trace.scores.correct ? 1 : 0;
    case 'f1':
      return trace.scores.f1;
    case 'marginal':
      return trace.scores.marginalUtility ?? 0;
  }
}

/** Per-question fitness map and its mean. */
export function fitnessOf(
  traces: readonly QuestionTrace[],
  items: readonly QAItem[],
  objective: Objective,
): { perQuestion: Record<string, number>; fitness: number } {
  const withEvidence = new Set(items.filter((i) => i.evidence.length > 0).map((i) => `${i.history}/${i.id}`));
  const perQuestion: Record<string, number> = {};
  for (const t of traces) {
    const key = `${t.history}/${t.question}`;
    if ((objective === 'evidence' || objective === 'ranking') && !withEvidence.has(key)) continue;
    // Items without gold evidence say nothing about evidence delivery.
    perQuestion[key] = questionFitness(t, objective);
  }
  const values = Object.values(perQuestion);
  return { perQuestion, fitness: values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0 };
}
