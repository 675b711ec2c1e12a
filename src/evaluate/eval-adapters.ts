/**
 * Wires the fixed answerer, the judge and the scorer (answerer.ts, judge.ts, score.ts, summary.ts) into the
 * shapes evaluateProgram takes. Offline (no client, or no model for the role) they are the extractive reader and
 * the token-F1 threshold judge.
 */
import type { LlmClient } from '../llm/types.ts';
import { createAnswerer, toEvalAnswerer } from '../scoring/answerer.ts';
import type { EvalAnswerer, EvalScorer } from './evaluate.ts';
import { createJudge } from '../scoring/judge.ts';
import { scoreQuestion } from '../scoring/score.ts';
import { summarize, type EvalSummary } from '../scoring/summary.ts';
import type { QuestionTrace } from '../scoring/trace.ts';

export function evalAnswererFrom(client: LlmClient | null): EvalAnswerer {
  return toEvalAnswerer(createAnswerer({ client }));
}

export function evalScorerFrom(client: LlmClient | null): { score: EvalScorer; judgeId: string } {
  const judge = createJudge({ client });
  return { score: (item, trace, { ks }) => scoreQuestion(item, trace, { ks, judge }), judgeId: judge.id };
}

export function summarizeTraces(traces: QuestionTrace[]): EvalSummary {
  return summarize(traces);
}
