/**
 * The shapes `memsteer bench` writes: one row type per experiment family, the rendered tables, and the result
 * file that holds both. Everything written goes through these schemas.
 */
import { z } from 'zod';
import { FeedbackMode } from '../config/run-options.ts';

/** The datasets the bench knows how to read and split. */
export const BenchDataset = z.enum(['locomo', 'rhelm']);
export type BenchDataset = z.infer<typeof BenchDataset>;

/** The experiment families (the paper's tables). */
export const ExperimentName = z.enum(['main', 'transfer', 'supervision', 'feedback']);
export type ExperimentName = z.infer<typeof ExperimentName>;
export const EXPERIMENTS: readonly ExperimentName[] = ExperimentName.options;

/** Headline metrics of a set of official questions. Null: the metric does not apply (no gold evidence, not LoCoMo). */
export const MetricsSchema = z.object({
  n: z.number().int().nonnegative(),
  recallAt10: z.number().nullable(),
  contextRecall: z.number().nullable(),
  accuracy: z.number(),
  f1: z.number(),
  /** LoCoMo's official F1 (LoCoMo questions only). */
  locomoF1: z.number().nullable(),
});
export type Metrics = z.infer<typeof MetricsSchema>;

/** Metrics overall and per official category (LoCoMo category 1–4, RHELM question type). */
export const PartScoresSchema = MetricsSchema.extend({ perCategory: z.record(z.string(), MetricsSchema) });
export type PartScores = z.infer<typeof PartScoresSchema>;

/**
 * {@link PartScoresSchema} over all questions, and the same for the development histories (src/experiments/dev-subsets.ts)
 * and the held-out ones apart (null when the questions hold none of that part): tables report the two separately.
 */
export const ScoresSchema = PartScoresSchema.extend({
  split: z.object({ dev: PartScoresSchema.nullable(), heldout: PartScoresSchema.nullable() }),
});
export type Scores = z.infer<typeof ScoresSchema>;

const RegretSchema = z.object({
  chosen: z.string(),
  chosenOfficial: z.number(),
  bestOfficial: z.string(),
  bestOfficialScore: z.number(),
  regret: z.number().nonnegative(),
  tiedAtTop: z.number().int().positive(),
  meanRegretOverTies: z.number().nonnegative(),
});

/** Agreement of validation fitness with one official metric (see fidelity-stats.ts and fidelity.ts). */
export const AgreementSchema = z.object({
  n: z.number().int().nonnegative(),
  kendallTauB: z.number().min(-1).max(1).nullable(),
  spearman: z.number().min(-1).max(1).nullable(),
  regret: RegretSchema.nullable(),
});

/**
 * Supervision fidelity of an optimized row's run: every scored candidate on the row's official questions, over the
 * held-out histories (the development ones only when the row has no other).
 */
export const BenchFidelitySchema = z.object({
  part: z.enum(['dev', 'heldout']),
  histories: z.number().int().positive(),
  questions: z.number().int().nonnegative(),
  /** Scored programs of the run, and those with distinct sources (what the statistics are over). */
  candidates: z.number().int().nonnegative(),
  distinct: z.number().int().nonnegative(),
  contextRecall: AgreementSchema,
  recallAt10: AgreementSchema,
  /**
   * The most τ-b by context recall any validation set could reach against the row's official questions (the run's
   * fidelity.json, `officialCeiling.meanTauB`); null when it is undefined, absent in results written before it.
   */
  ceiling: z.number().min(-1).max(1).nullable().optional(),
  /**
   * The run's decisions replayed on official context recall (fidelity.json, `decisions`): how many the official
   * questions confirm, contradict, or cannot tell apart. Null when undefined, absent in results written before it.
   */
  decisions: z
    .object({ agree: z.number().int().nonnegative(), disagree: z.number().int().nonnegative(), unclear: z.number().int().nonnegative() })
    .nullable()
    .optional(),
});
export type BenchFidelity = z.infer<typeof BenchFidelitySchema>;

/** Which design a row is about and where it came from. */
export const DesignRefSchema = z.object({
  /** Program id in its run (the seed's id for Base-BM25). */
  program: z.string(),
  /** Run directory relative to the bench output, null for a design that was not optimized here. */
  run: z.string().nullable(),
  /** Validation fitness (the search objective on generated or official validation items) when optimized. */
  valFitness: z.number().nullable(),
  accepted: z.number().int().nonnegative().nullable(),
  proposals: z.number().int().nonnegative().nullable(),
  /** sha256 of the design's source: rows with the same hash test the same design. */
  contentHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
  /** How well the run's validation ranked its candidates officially (with `fidelity` on; see bench-fidelity.ts). */
  fidelity: BenchFidelitySchema.nullable().optional(),
});
export type DesignRef = z.infer<typeof DesignRefSchema>;

const SupervisionInfo = z.object({
  kind: z.enum(['none', 'generated', 'official']),
  train: z.number().int().nonnegative(),
  val: z.number().int().nonnegative(),
});

export const MainRowSchema = z.object({
  dataset: BenchDataset,
  method: z.enum(['base-bm25', 'generated', 'official-qa']),
  label: z.string(),
  histories: z.number().int().positive(),
  supervision: SupervisionInfo,
  design: DesignRefSchema,
  test: ScoresSchema,
});
export type MainRow = z.infer<typeof MainRowSchema>;

export const TransferRowSchema = z.object({
  /** A target persona, or `all targets` for the pooled questions. */
  persona: z.string(),
  stage: z.enum(['base-bm25', 'frozen', 'continued']),
  supervision: SupervisionInfo,
  design: DesignRefSchema,
  test: ScoresSchema,
});
export type TransferRow = z.infer<typeof TransferRowSchema>;

export const SupervisionRowSchema = z.object({
  dataset: BenchDataset,
  variant: z.string(),
  checks: z.boolean(),
  /** Training items given to the search (the budget arm's cap, or all). */
  trainItems: z.number().int().nonnegative(),
  valItems: z.number().int().nonnegative(),
  design: DesignRefSchema,
  test: ScoresSchema,
});
export type SupervisionRow = z.infer<typeof SupervisionRowSchema>;

export const FeedbackRowSchema = z.object({
  dataset: BenchDataset,
  mode: FeedbackMode,
  label: z.string(),
  design: DesignRefSchema,
  test: ScoresSchema,
});
export type FeedbackRow = z.infer<typeof FeedbackRowSchema>;

/** A table as rendered: header cells and rows of cells (already formatted). */
export const TableSchema = z.object({
  title: z.string(),
  columns: z.array(z.string()).min(1),
  rows: z.array(z.array(z.string())),
});
export type Table = z.infer<typeof TableSchema>;

const resultBase = {
  title: z.string(),
  /** What each number means and what differs offline; rendered under the tables. */
  notes: z.array(z.string()),
  tables: z.array(TableSchema),
  /** Wall time of the experiment in this bench run (reused cells count as their read time). */
  seconds: z.number().nonnegative(),
};

export const MainResultSchema = z.object({ experiment: z.literal('main'), ...resultBase, rows: z.array(MainRowSchema) });
export const TransferResultSchema = z.object({
  experiment: z.literal('transfer'),
  ...resultBase,
  sources: z.array(z.string()),
  targets: z.array(z.string()),
  rows: z.array(TransferRowSchema),
});
export const SupervisionResultSchema = z.object({
  experiment: z.literal('supervision'),
  ...resultBase,
  rows: z.array(SupervisionRowSchema),
});
export const FeedbackResultSchema = z.object({ experiment: z.literal('feedback'), ...resultBase, rows: z.array(FeedbackRowSchema) });

/** One experiment's result file (`<out>/<experiment>.json`). */
export const ExperimentResultSchema = z.discriminatedUnion('experiment', [
  MainResultSchema,
  TransferResultSchema,
  SupervisionResultSchema,
  FeedbackResultSchema,
]);
export type ExperimentResult = z.infer<typeof ExperimentResultSchema>;
export type MainResult = z.infer<typeof MainResultSchema>;
export type TransferResult = z.infer<typeof TransferResultSchema>;
export type SupervisionResult = z.infer<typeof SupervisionResultSchema>;
export type FeedbackResult = z.infer<typeof FeedbackResultSchema>;
