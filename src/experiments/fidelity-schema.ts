/**
 * The shape of `<run>/fidelity.json` (see fidelity.ts, which computes it), and its reader: the HTML report and the
 * bench read it without the evaluation machinery.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { AgreementSchema, MetricsSchema } from './schemas.ts';

/** Where a run's fidelity report is written. */
export const FIDELITY_FILE = 'fidelity.json';

export const FidelityCandidateSchema = z.object({
  id: z.string(),
  iteration: z.number().int().nonnegative(),
  kind: z.string(),
  status: z.string(),
  contentHash: z.string(),
  /** The program it was proposed from (null for a seed); absent in reports written before it was recorded. */
  parent: z.string().nullable().optional(),
  proposer: z.string().nullable(),
  /** The run's validation fitness (the objective on generated validation items), as the archive recorded it. */
  valFitness: z.number(),
  /** Official metrics; null when the candidate no longer compiles (`error` says why). */
  official: MetricsSchema.nullable(),
  /** An earlier candidate with the same source: it is counted once in the statistics (its twin is not evaluated again). */
  sameAs: z.string().nullable(),
  error: z.string().nullable(),
});
export type FidelityCandidate = z.infer<typeof FidelityCandidateSchema>;

/** Split-half reliability of one side's ranking (fidelity-stats.ts, splitHalfReliability). */
export const SplitHalfSchema = z.object({
  meanTauB: z.number().min(-1).max(1),
  p10: z.number().min(-1).max(1),
  p90: z.number().min(-1).max(1),
  splits: z.number().int().positive(),
  questions: z.number().int().nonnegative(),
  candidates: z.number().int().nonnegative(),
});
export type SplitHalfReliability = z.infer<typeof SplitHalfSchema>;

/** The official questions' own ceiling on agreement (fidelity-stats.ts, officialCeiling). */
export const OfficialCeilingSchema = z.object({
  meanTauB: z.number().min(-1).max(1),
  p10: z.number().min(-1).max(1),
  p90: z.number().min(-1).max(1),
  resamples: z.number().int().positive(),
  questions: z.number().int().nonnegative(),
  candidates: z.number().int().nonnegative(),
});
export type OfficialCeilingReport = z.infer<typeof OfficialCeilingSchema>;

/** A bootstrap interval of the validation–official τ-b by context recall (fidelity-stats.ts, tauInterval). */
export const TauIntervalSchema = z.object({
  kendallTauB: z.number().min(-1).max(1),
  lower: z.number().min(-1).max(1),
  upper: z.number().min(-1).max(1),
  level: z.number().gt(0).lt(1),
  resamples: z.number().int().positive(),
  items: z.number().int().nonnegative(),
  questions: z.number().int().nonnegative(),
});
export type TauIntervalReport = z.infer<typeof TauIntervalSchema>;

/** One validation template's agreement with the official ranking (see groupAgreement in fidelity-stats.ts). */
export const GroupAgreementSchema = z.object({
  group: z.string(),
  items: z.number().int().positive(),
  kendallTauB: z.number().min(-1).max(1).nullable(),
  spearman: z.number().min(-1).max(1).nullable(),
});

/** One decision of the search, replayed on official scores (fidelity-decisions.ts, searchDecisions). */
export const FidelityDecisionSchema = z.object({
  id: z.string(),
  /** The parent it was compared with. */
  parent: z.string(),
  /** The proposer's move (the archive's `proposer`, e.g. `case-driven:query-prf`). */
  move: z.string(),
  /** What the search did with it. */
  accepted: z.boolean(),
  /** Validation fitness minus the parent's. */
  valDelta: z.number(),
  /** Mean official context recall minus the parent's, over the questions both were scored on. */
  officialDelta: z.number(),
  /** Paired standard error of `officialDelta`. */
  officialSe: z.number().nonnegative(),
  /** `better` / `worse` when `officialDelta` is beyond 1.96 standard errors of zero, else `unclear`. */
  official: z.enum(['better', 'worse', 'unclear']),
  /** Kept and officially better, or dropped and officially worse; null when the official change is unclear. */
  agrees: z.boolean().nullable(),
});
export type FidelityDecision = z.infer<typeof FidelityDecisionSchema>;

/**
 * One group's share of a move's change: the sum of the move's per-item differences (pooled over its decisions) on the
 * group's items, divided by all the items. A move's shares add up to its pooled change, so they say which items pushed
 * it: per template of the validation items (which generated items pushed the search for or against the move), per
 * category of the official questions (which of them the move helps or hurts).
 */
export const MoveShareSchema = z.object({
  /** The validation items' template, or the official questions' category. */
  group: z.string(),
  /** Items of this group the move's decisions were scored on. */
  items: z.number().int().positive(),
  share: z.number(),
});
export type MoveShare = z.infer<typeof MoveShareSchema>;

/** The search's decisions replayed on official scores, in all and per proposer move. */
export const FidelityDecisionsSchema = z.object({
  decisions: z.array(FidelityDecisionSchema),
  agree: z.number().int().nonnegative(),
  disagree: z.number().int().nonnegative(),
  unclear: z.number().int().nonnegative(),
  byMove: z.array(
    z.object({
      move: z.string(),
      decisions: z.number().int().positive(),
      accepted: z.number().int().nonnegative(),
      agree: z.number().int().nonnegative(),
      disagree: z.number().int().nonnegative(),
      meanValDelta: z.number(),
      meanOfficialDelta: z.number(),
      /**
       * The move's official effect pooled over its decisions (per question, the mean of their differences): its
       * standard error, and `better` / `worse` beyond 1.96 of them, else `unclear`. A move each of whose decisions is
       * within the noise can still be told apart here.
       */
      officialSe: z.number().nonnegative(),
      official: z.enum(['better', 'worse', 'unclear']),
      /** Validation moved it the other way on average: a systematic bias of the generated items against this move. */
      against: z.boolean(),
      /**
       * Where the validation change came from, per template of the validation items, largest shares first (templates
       * with no change left out). Absent when the run's objective is not context recall, when its supervision file is
       * gone, and in reports written before it existed.
       */
      valByTemplate: z.array(MoveShareSchema).optional(),
      /**
       * Where the pooled official change came from, per category of the official questions (`unknown` for one without),
       * largest shares first. Absent in reports written before it existed.
       */
      officialByCategory: z.array(MoveShareSchema).optional(),
    }),
  ),
});
export type FidelityDecisions = z.infer<typeof FidelityDecisionsSchema>;

/** `<run>/fidelity.json`. */
export const FidelityReportSchema = z.object({
  format: z.literal(1),
  run: z.string(),
  computedAt: z.string(),
  /** History source the official questions came from. */
  history: z.string(),
  /** `official` (the histories' own QA) or the question file used instead. */
  questions: z.string(),
  /** Official categories kept (empty: all). */
  categories: z.array(z.string()),
  /** Official questions per history: a fixed sample of at most this many (null: all). */
  perHistory: z.number().int().positive().nullable(),
  excludeDev: z.boolean(),
  histories: z.array(z.string()),
  /** Histories of a development subset among them (their official QA may have been looked at during calibration). */
  devHistories: z.array(z.string()),
  questionCount: z.number().int().nonnegative(),
  objective: z.string(),
  contextBudget: z.number().int().positive(),
  /** Answerer of the official accuracy and F1 (context recall and R@10 do not depend on it). */
  answerer: z.string(),
  /** The best program the run itself reports (its acceptance rule's choice). */
  runBest: z.string().nullable(),
  candidates: z.array(FidelityCandidateSchema),
  /** Candidates with distinct sources and official scores: what the statistics are over. */
  distinct: z.number().int().nonnegative(),
  contextRecall: AgreementSchema,
  recallAt10: AgreementSchema,
  /** Official regret of the run's own best (by context recall), beside that of the highest validation fitness. */
  runBestRegret: z.number().nullable(),
  /**
   * How reproducible each side's ranking of the distinct candidates is by context recall: τ-b between two random
   * halves of the official questions, and of the validation items (validation only when the run's objective is
   * context recall of the evidence, so the per-item scores are its fitness). A val–official τ-b can hardly exceed
   * what the official questions show against themselves. Absent in reports written before it existed.
   */
  reliability: z.object({ official: SplitHalfSchema.nullable(), validation: SplitHalfSchema.nullable() }).optional(),
  /**
   * The highest τ-b by context recall that any validation set could reach against these official questions: τ-b
   * between the distinct candidates' official means and their means on bootstrap resamples of the official questions,
   * which is what a validation set measuring each candidate's expected official score without noise would reach. A
   * fidelity target above it is beyond what the official questions can confirm. Null without per-question official
   * scores; absent in reports written before it existed.
   */
  officialCeiling: OfficialCeilingSchema.nullable().optional(),
  /**
   * 95% bootstrap interval of τ-b between the distinct candidates' mean per-item validation context recall and their
   * mean official context recall (validation items and official questions resampled apart): whether a τ-b target is
   * met or missed beyond the noise of the two question sets. Its point is over per-item means, so it can differ a
   * little from `contextRecall.kendallTauB` (over the archive's fitness). Null when per-item scores are missing or the
   * objective is not context recall of the evidence; absent in older reports.
   */
  tauInterval: TauIntervalSchema.nullable().optional(),
  /**
   * Per generator template of the validation items (an item's `checks.template`, else its question type), τ-b and ρ
   * between the distinct candidates' mean context recall on that template's items and their official context
   * recall: which templates rank designs the way the official questions do. Null when the run's objective is not
   * context recall of the evidence, or its traces or supervision file are gone; absent in older reports.
   */
  byTemplate: z.array(GroupAgreementSchema).nullable().optional(),
  /**
   * Every proposal the search kept or dropped, against its parent: its validation change beside its official
   * context-recall change, and whether the official questions confirm the decision (see fidelity-decisions.ts). It
   * shows which moves the generated validation steers against the official questions. Null without per-question
   * official scores; absent in older reports.
   */
  decisions: FidelityDecisionsSchema.nullable().optional(),
});
export type FidelityReport = z.infer<typeof FidelityReportSchema>;

/** A run's fidelity report when one was written (validated), else null. */
export function readFidelity(runDir: string): FidelityReport | null {
  const file = join(resolve(runDir), FIDELITY_FILE);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError('E_BAD_FIDELITY', `${file}: not JSON (${(e as Error).message}); rerun memsteer report --fidelity`, { file });
  }
  const parsed = FidelityReportSchema.safeParse(raw);
  if (!parsed.success)
    throw new InputError(
      'E_BAD_FIDELITY',
      `${file}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}; rerun memsteer report --fidelity`,
      { file },
    );
  return parsed.data;
}
