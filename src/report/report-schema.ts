import { z } from 'zod';
import { FidelityReportSchema } from '../experiments/fidelity-schema.ts';

/**
 * The data behind an HTML report: what `buildReportData` reads out of a run archive, validated before it is
 * embedded in the page (the page's charts read it back from a `<script type="application/json">` block).
 */

/** Aggregate metrics of one set of questions; null where a metric does not apply (no gold evidence, no LoCoMo items). */
export const MetricsSchema = z.object({
  n: z.number().int().nonnegative(),
  accuracy: z.number().nullable(),
  f1: z.number().nullable(),
  recallAt10: z.number().nullable(),
  contextRecall: z.number().nullable(),
  locomoF1: z.number().nullable(),
  marginalUtility: z.number().nullable(),
});
export type Metrics = z.infer<typeof MetricsSchema>;

/** One program as a node of the lineage tree. */
export const ProgramNodeSchema = z.object({
  id: z.string(),
  kind: z.enum(['seed', 'proposal', 'control']),
  iteration: z.number().int().nonnegative(),
  attempt: z.number().int().nonnegative(),
  parent: z.string().nullable(),
  status: z.enum(['proposed', 'invalid', 'evaluated', 'accepted', 'rejected', 'failed']),
  /** Validation fitness, when evaluated. */
  score: z.number().nullable(),
  /** Fitness minus the incumbent's, from the acceptance decision. */
  delta: z.number().nullable(),
  proposer: z.string().nullable(),
  rationale: z.string().nullable(),
  targets: z.string().nullable(),
  /** `stage: message` of an invalid or failed program. */
  failure: z.string().nullable(),
  decision: z.string().nullable(),
  /** The accepted program with the highest validation score. */
  best: z.boolean(),
});
export type ProgramNode = z.infer<typeof ProgramNodeSchema>;

/** Training-set diagnosis of the current program after one iteration. */
export const FailureBarSchema = z.object({
  iteration: z.number().int().nonnegative(),
  /** The program diagnosed (the most recently accepted one at that iteration); null before any acceptance. */
  program: z.string().nullable(),
  /** Question counts by category (`pass` included); null when that program has no diagnosis on disk. */
  counts: z.record(z.string(), z.number().int().nonnegative()).nullable(),
});

/** An accepted revision: what changed against its parent and why. */
export const RevisionSchema = z.object({
  id: z.string(),
  parent: z.string(),
  iteration: z.number().int(),
  proposer: z.string().nullable(),
  rationale: z.string().nullable(),
  targets: z.string().nullable(),
  decision: z.string().nullable(),
  scoreBefore: z.number().nullable(),
  scoreAfter: z.number().nullable(),
  applied: z.array(z.object({ op: z.string(), summary: z.string() })),
  /** Unified diff against the parent's source ('' when identical, null when a source is missing). */
  diff: z.string().nullable(),
});
export type Revision = z.infer<typeof RevisionSchema>;

/** Scores of one program on one question set, overall and per question category. */
export const SplitScoresSchema = z.object({
  split: z.enum(['val', 'test']),
  role: z.enum(['seed', 'best']),
  program: z.string(),
  /** `traces`: computed from per-question traces; `summary`: the aggregate the run recorded (no categories). */
  source: z.enum(['traces', 'summary']),
  overall: MetricsSchema,
  perCategory: z.record(z.string(), MetricsSchema),
});
export type SplitScoresEntry = z.infer<typeof SplitScoresSchema>;

export const CostRowSchema = z.object({
  role: z.string(),
  model: z.string(),
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /** Dollars when known; null means unknown (tokens were spent and no price was recorded), never a silent 0. */
  dollars: z.number().nullable(),
  ms: z.number().nonnegative(),
});
export type CostRow = z.infer<typeof CostRowSchema>;

export const ReportDataSchema = z.object({
  generatedAt: z.string(),
  run: z.object({
    name: z.string(),
    dir: z.string(),
    createdAt: z.string(),
    objective: z.string(),
    models: z.record(z.string(), z.string()),
    rngSeed: z.union([z.number(), z.string()]),
    memsteer: z.string(),
    gitCommit: z.string().nullable(),
    stopped: z.object({ reason: z.string(), at: z.string() }).nullable(),
  }),
  summary: z.object({
    seed: z.object({ id: z.string(), score: z.number().nullable() }).nullable(),
    best: z.object({ id: z.string(), score: z.number().nullable() }).nullable(),
    programs: z.number().int(),
    proposals: z.number().int(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    invalid: z.number().int(),
    failed: z.number().int(),
    lastIteration: z.number().int(),
  }),
  programs: z.array(ProgramNodeSchema),
  /** Best validation fitness among programs accepted at or before each iteration. */
  bestSoFar: z.array(z.object({ iteration: z.number().int(), score: z.number(), program: z.string() })),
  failures: z.object({ categories: z.array(z.string()), bars: z.array(FailureBarSchema) }),
  revisions: z.array(RevisionSchema),
  scores: z.object({
    /** The metric the search optimised, as a key of {@link MetricsSchema} (what the per-category charts show). */
    metric: z.enum(['accuracy', 'f1', 'recallAt10', 'contextRecall', 'locomoF1', 'marginalUtility']),
    entries: z.array(SplitScoresSchema),
  }),
  cost: z.object({
    roles: z.array(CostRowSchema),
    total: CostRowSchema,
    /** Wall time per iteration (all programs of the iteration). */
    perIteration: z.array(
      z.object({ iteration: z.number().int(), proposeMs: z.number(), evaluateMs: z.number(), tokens: z.number().int() }),
    ),
    notes: z.array(z.string()),
  }),
  warnings: z.array(z.string()),
  /** `<run>/fidelity.json` when `memsteer report --fidelity` wrote one: validation vs official ranking of the candidates. */
  fidelity: FidelityReportSchema.nullable(),
});
export type ReportData = z.infer<typeof ReportDataSchema>;
