import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import type { EvalSummary } from '../scoring/summary.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import type { Provenance } from '../diagnose/provenance.ts';
import type { QAItem } from '../history/record.ts';
import type { Objective } from '../config/run-options.ts';

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

/** Evaluates compiled programs on the run's question splits. The loop depends on this interface only. */
export interface CandidateEvaluator {
  readonly questions: Readonly<Record<QuestionSplit, readonly QAItem[]>>;
  evaluate(program: CompiledProgram, split: QuestionSplit): Promise<CandidateEvaluation>;
}

/** A question's fitness under the objective; a question whose design failed scores 0. */
export function questionFitness(trace: QuestionTrace, objective: Objective): number {
  if (trace.error || !trace.scores) return 0;
  switch (objective) {
    case 'evidence':
      return trace.scores.contextRecall;
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
    if (objective === 'evidence' && !withEvidence.has(key)) continue;
    // Items without gold evidence say nothing about evidence delivery.
    perQuestion[key] = questionFitness(t, objective);
  }
  const values = Object.values(perQuestion);
  return { perQuestion, fitness: values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0 };
}
