/** Evaluation summaries → the bench's metric rows. */
import { summarize, type EvalSummary, type MetricBlock } from '../scoring/summary.ts';
import type { QuestionTrace } from '../scoring/trace.ts';
import { historySplit } from './dev-subsets.ts';
import { ScoresSchema, type Metrics, type PartScores, type Scores } from './schemas.ts';

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
export function partScoresFromSummary(s: EvalSummary): PartScores {
  const perCategory: Record<string, Metrics> = {};
  for (const [c, b] of Object.entries(s.perCategory)) perCategory[c] = metrics(b);
  return { ...metrics(s), perCategory };
}

/**
 * Scores of a set of traces (possibly pooled from several histories' evaluations): over all of them, and over the
 * development and held-out histories apart (by each trace's history, see dev-subsets.ts).
 */
export function scoresFromTraces(traces: readonly QuestionTrace[]): Scores {
  const part = (split: 'dev' | 'heldout') => {
    const ts = traces.filter((t) => historySplit(t.history) === split);
    return ts.length ? partScoresFromSummary(summarize(ts)) : null;
  };
  return ScoresSchema.parse({ ...partScoresFromSummary(summarize(traces)), split: { dev: part('dev'), heldout: part('heldout') } });
}
