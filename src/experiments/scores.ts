/** Evaluation summaries → the bench's metric rows. */
import { summarize, type EvalSummary, type MetricBlock } from '../scoring/summary.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { ScoresSchema, type Metrics, type Scores } from './schemas.ts';

function metrics(b: MetricBlock): Metrics {
  return {
    n: b.n,
    recallAt10: b.withEvidence ? (b.recallAt['10'] ?? null) : null,
    contextRecall: b.contextRecall,
    accuracy: b.accuracy,
    f1: b.f1,
    locomoF1: b.locomoF1,
  };
}

/** The bench's view of a summary: headline metrics and the same per official category. */
export function scoresFromSummary(s: EvalSummary): Scores {
  const perCategory: Record<string, Metrics> = {};
  for (const [c, b] of Object.entries(s.perCategory)) perCategory[c] = metrics(b);
  return ScoresSchema.parse({ ...metrics(s), perCategory });
}

/** Scores of a set of traces (possibly pooled from several histories' evaluations). */
export function scoresFromTraces(traces: readonly QuestionTrace[]): Scores {
  return scoresFromSummary(summarize(traces));
}
