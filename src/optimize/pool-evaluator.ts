import type { Budget } from '../../sandbox/contract.ts';
import { join } from 'node:path';
import { evalAnswererFrom, evalScorerFrom } from '../evaluate/eval-adapters.ts';
import { evaluateProgram, type EvalAnswerer, type EvalPool, type EvalScorer } from '../evaluate/evaluate.ts';
import type { LlmClient } from '../llm/types.ts';
import type { CompiledProgram } from '../isolate/sandbox-api.ts';
import { summarize } from '../scoring/summary.ts';
import type { History, QAItem } from '../history/record.ts';
import { fitnessOf, type CandidateEvaluator, type Objective, type QuestionSplit } from './candidate-evaluator.ts';

export interface PoolEvaluatorOptions {
  histories: readonly History[];
  questions: Record<QuestionSplit, readonly QAItem[]>;
  pool: EvalPool;
  answerer: EvalAnswerer;
  score: EvalScorer;
  judgeId: string;
  budget: Budget;
  objective: Objective;
  /** Evaluation cache (program hash × histories × question set × answerer × budget): a resumed run re-pays nothing. */
  cacheDir?: string;
  onProgress?: (split: QuestionSplit, done: number, total: number) => void;
}

/** Evaluates candidates in the sandbox pool on the run's splits; the search loop's default evaluator. */
export function createPoolEvaluator(options: PoolEvaluatorOptions): CandidateEvaluator {
  return {
    questions: options.questions,
    async evaluate(program: CompiledProgram, split: QuestionSplit) {
      const items = options.questions[split];
      const r = await evaluateProgram({
        program,
        histories: options.histories,
        questions: items,
        budget: options.budget,
        answerer: options.answerer,
        score: options.score,
        judgeId: options.judgeId,
        summarize: (t) => summarize(t),
        pool: options.pool,
        // Marginal utility needs extra answers per question; only the objective that climbs it pays for them.
        ...(options.objective === 'marginal' ? { marginal: {} } : {}),
        ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
        ...(options.onProgress ? { onProgress: (p) => options.onProgress!(split, p.done, p.total) } : {}),
      });
      const { perQuestion, fitness } = fitnessOf(r.traces, items, options.objective);
      return {
        traces: r.traces,
        summary: r.summary,
        perQuestion,
        fitness,
        provenance: r.provenance,
        key: r.cacheKey,
        cached: r.cached,
        tokens: r.stats.llmTokens,
        ms: r.stats.ms,
      };
    },
  };
}

/**
 * The evaluator of one optimization run: the fixed answerer and judge for `llm` (offline algorithms when null), the
 * run's context budget, and its evaluation cache under `<runDir>/eval-cache`.
 */
export function createRunEvaluator(o: {
  histories: readonly History[];
  questions: Record<QuestionSplit, readonly QAItem[]>;
  pool: EvalPool;
  llm: LlmClient | null;
  contextBudget: number;
  objective: Objective;
  runDir: string;
  onProgress?: PoolEvaluatorOptions['onProgress'];
}): CandidateEvaluator {
  const scorer = evalScorerFrom(o.llm);
  return createPoolEvaluator({
    histories: o.histories,
    questions: o.questions,
    pool: o.pool,
    answerer: evalAnswererFrom(o.llm),
    score: scorer.score,
    judgeId: scorer.judgeId,
    budget: { tokens: o.contextBudget },
    objective: o.objective,
    cacheDir: join(o.runDir, 'eval-cache'),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
}
