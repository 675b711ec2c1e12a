import type { Evidence, QAItem } from '../history/record.ts';
import type { Bundle } from './bundles.ts';
import type { AnswerPlan, QuestionType } from './plan.ts';
import { shortHash } from './rng.ts';
import type { RunStats } from './summary.ts';

/** An item that passed every gate of its pipeline, before de-duplication and the split. */
export interface AcceptedItem {
  type: QuestionType;
  question: string;
  /** ISO day the question is asked on (only history up to it answers it); absent: asked with all of it. */
  date?: string;
  plan: AnswerPlan;
  evidence: Evidence[];
  checks: Record<string, string | number | boolean>;
}

/** Makes items from one bundle. The offline and the LLM pipelines both implement it. */
export interface BundleProcessor {
  /** Written into every item's `generator`. */
  readonly generator: string;
  /** The blind reader's name (for the summary). */
  readonly reader: string;
  /** Prompt versions in use, by role (empty offline). */
  readonly prompts: Record<string, string>;
  /**
   * The share of the set's items whose question shares no content word with its evidence, when the processor
   * rephrases toward one (offline); generateSupervision brings the chosen items down to it (gap-target.ts).
   */
  readonly gapTarget?: number;
  /**
   * The group a template's items count against and that group's largest share of the target, held from the first
   * item when `always`, else once the type caps lift (the open types stopped yielding); without it (or for items
   * without a template) templates are uncapped.
   */
  fillCap?(template: string): { group: string; share: number; always: boolean };
  /**
   * Items from `bundle`, trying types in the order given (most wanted first). Counts every stage and rejection
   * into `stats`. May throw BudgetExceededError, which ends the run cleanly.
   */
  process(bundle: Bundle, types: readonly QuestionType[], stats: RunStats): Promise<AcceptedItem[]>;
  /**
   * For a processor that remembers something across bundles (what it already asked): what the last `process`
   * added to that memory, to journal with the bundle, and how to put it back when a resumed run replays the
   * bundle from the journal instead of processing it. Without them a resumed run could ask different questions.
   */
  memoSince?(): string[];
  restoreMemo?(memo: readonly string[]): void;
}

/** The supervision line of an accepted item. */
export function toQAItem(history: string, generator: string, bundle: Bundle, a: AcceptedItem): QAItem {
  return {
    id: `${history}:gen-${shortHash(`${a.question}\u0000${a.plan.answer}`)}`,
    history,
    question: a.question,
    answer: a.plan.answer,
    answerType: a.plan.answerType,
    category: a.type,
    ...(a.date ? { date: a.date } : {}),
    evidence: a.evidence,
    generator,
    plan: a.plan,
    ...premiseOf(a.plan),
    checks: a.checks,
    meta: { bundle: bundle.id, seed: bundle.seed },
  };
}

/** A false-premise plan's premise, or a verified one for a yes/no answer the plan's evidence supports. */
function premiseOf(plan: AnswerPlan): Pick<QAItem, 'premise'> {
  if (plan.premise) return { premise: { status: 'false', ...plan.premise } };
  return plan.answerType === 'boolean' ? { premise: { status: 'verified' } } : {};
}
