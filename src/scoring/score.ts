/**
 * Scores one question: correctness (type-normalised exact match, else the judge), SQuAD F1, LoCoMo's official
 * F1 for LoCoMo items, evidence recall@k over the ranked records, recall at the token budget over the ranked units
 * that fit it, and context recall over the delivered records.
 */
import type { QAItem } from '../history/record.ts';
import { answersMatch, isAbstention } from './answer-match.ts';
import type { Judge } from './judge.ts';
import { locomoScore } from './locomo-f1.ts';
import { contextRecall, goldRecords, recallAtK, tokenF1 } from './metrics.ts';
import { creditedOf, type QuestionScores } from './trace.ts';

export interface ScoreOptions {
  /** Recall cut-offs (e.g. [1, 5, 10]). */
  ks: readonly number[];
  judge: Judge;
  /** 'locomo' forces LoCoMo's official F1 even when the item's generator does not say so. */
  dataset?: string;
}

/** What scoring reads from a trace (record lists are the host-verified ones; see src/scoring/provenance.ts). */
export interface ScoredTrace {
  rankedRecords: readonly string[];
  budgetRecords?: readonly string[];
  deliveredRecords: readonly string[];
  /** The delivered records context recall credits (span-aware); `deliveredRecords` when absent. */
  creditedRecords?: readonly string[];
  answer: string | null;
}

/** True for official LoCoMo items (generator `official:locomo…`) or when the caller says the data set is LoCoMo. */
export function isLocomoItem(item: QAItem, dataset?: string): boolean {
  return dataset === 'locomo' || (item.generator ?? '').startsWith('official:locomo');
}

/** True when the reference itself declines (an unanswerable question): LoCoMo category 5 or an abstention text. */
export function isUnanswerable(item: QAItem, dataset?: string): boolean {
  if (isLocomoItem(item, dataset) && item.category === '5') return true;
  return isAbstention(item.answer);
}

/**
 * Scores one question. A missing answer (the design or answerer failed) is incorrect with F1 0; recall is still
 * computed from whatever was ranked. Items without gold evidence get an empty `recallAt` and `contextRecall` 0:
 * summaries leave them out of recall means (they test by `recallAt` being empty).
 */
export async function scoreQuestion(item: QAItem, trace: ScoredTrace, options: ScoreOptions): Promise<QuestionScores> {
  const gold = goldRecords(item.evidence);
  const recallAt = recallAtK(gold, trace.rankedRecords, options.ks);
  const ctxRecall = contextRecall(gold, creditedOf(trace)) ?? 0;
  const atBudget = trace.budgetRecords ? contextRecall(gold, trace.budgetRecords) : undefined;
  const answer = trace.answer ?? '';
  const locomo = isLocomoItem(item, options.dataset);
  const category = item.category ?? '';
  const locomoF1 = locomo && /^[1-5]$/.test(category) ? locomoScore(answer, item.answer, category) : undefined;
  // LoCoMo category 3 references carry an explanation after ';' that the official scorer cuts off.
  const reference = locomo && category === '3' ? item.answer.split(';')[0]!.trim() : item.answer;
  const f1 = tokenF1(answer, reference);

  let correct: boolean;
  let correctBy: QuestionScores['correctBy'];
  if (answer.trim() === '') {
    correct = false;
    correctBy = options.judge.kind;
  } else if (isUnanswerable(item, options.dataset)) {
    // An unanswerable question is answered correctly by declining, whatever words the reference uses.
    correct = isAbstention(answer);
    correctBy = 'exact';
  } else if (isAbstention(answer)) {
    correct = false;
    correctBy = 'exact';
  } else if (answersMatch(answer, reference, item.answerType)) {
    correct = true;
    correctBy = 'exact';
  } else {
    const verdict = await options.judge.judge({ question: item.question, reference, answer, answerType: item.answerType });
    correct = verdict.correct;
    correctBy = verdict.by;
  }
  return {
    correct,
    correctBy,
    f1,
    ...(locomoF1 !== undefined ? { locomoF1 } : {}),
    recallAt,
    ...(atBudget !== undefined ? { recallAtBudget: atBudget } : {}),
    contextRecall: ctxRecall,
  };
}
