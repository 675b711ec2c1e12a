import { z } from 'zod';
import { FAILURE_CATEGORIES } from '../diagnose/diagnosis.ts';
import { AppliedEditSchema, EditOpSchema } from '../design/edit-ops.ts';

/** Archive layout version, written into the manifest so a later memsteer can refuse or migrate old runs. */
export const ARCHIVE_FORMAT = 1;

/** Folder of a run holding the official-test traces of its seed and best (`official/<program>.jsonl`). */
export const OFFICIAL_TRACES_DIR = 'official';

/** `manifest.json`: everything needed to know how a run was made and to reproduce it. */
export const ManifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  /** Run name (the archive directory's name). */
  run: z.string().min(1),
  createdAt: z.string(),
  /** The optimizer configuration as resolved (CLI flags + config file), free-form but JSON. */
  config: z.record(z.string(), z.unknown()),
  /** Seed designs, by path and sha256 of their source. */
  seeds: z.array(z.object({ path: z.string(), sha256: z.string() })),
  /** Model per role (`proposer`, `answerer`, `judge`…); `offline` when a role has no model. */
  models: z.record(z.string(), z.string()),
  /** Version of each prompt template used (name → version or content hash). */
  promptVersions: z.record(z.string(), z.string()),
  /** The run's RNG seed. */
  rngSeed: z.union([z.number().int(), z.string()]),
  versions: z.object({
    memsteer: z.string(),
    node: z.string(),
    /** Installed versions of the runtime dependencies. */
    packages: z.record(z.string(), z.string()),
  }),
  /** HEAD of the memsteer checkout when there is one (null when not a git checkout). */
  gitCommit: z.string().nullable(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** What the caller provides to create a run; the rest (format, run, time, versions, commit) is filled in. */
export type ManifestInput = Pick<Manifest, 'config' | 'seeds' | 'models' | 'promptVersions' | 'rngSeed'> &
  Partial<Pick<Manifest, 'createdAt' | 'versions' | 'gitCommit'>>;

export const CostSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  dollars: z.number().nonnegative(),
  /** Wall time of proposing (LLM call, edits, compile) and of evaluating. */
  proposeMs: z.number().nonnegative().optional(),
  evaluateMs: z.number().nonnegative().optional(),
});
export type Cost = z.infer<typeof CostSchema>;

export const ZERO_COST: Cost = { promptTokens: 0, completionTokens: 0, dollars: 0 };

/** Validation scores of one program. */
export const ScoresSchema = z.object({
  /** Objective the fitness is computed under (accuracy, evidence, ranking, f1, marginal). */
  objective: z.string(),
  /** Validation fitness: the number acceptance compares. */
  value: z.number(),
  /** Questions scored. */
  n: z.number().int().nonnegative(),
  /** Per-question fitness, keyed by `<history>/<question id>` or question id: what Pareto and bootstrap read. */
  perQuestion: z.record(z.string(), z.number()),
  /** Other aggregate metrics (accuracy, f1, recall@10, contextRecall, errors…). */
  metrics: z.record(z.string(), z.number()),
  /** The evaluation cache key (program hash × history × question set × answerer), when known. */
  evaluationKey: z.string().optional(),
});
export type Scores = z.infer<typeof ScoresSchema>;

export const ProgramStatus = z.enum(['proposed', 'invalid', 'evaluated', 'accepted', 'rejected', 'failed']);
export type ProgramStatus = z.infer<typeof ProgramStatus>;

export const FailureSchema = z.object({
  /** Where it failed: the proposer's reply, applying the edits, compiling, or evaluating. */
  stage: z.enum(['propose', 'apply', 'compile', 'evaluate']),
  code: z.string().optional(),
  message: z.string(),
  /** Edit errors or compile diagnostics, as returned to the proposer. */
  details: z.array(z.unknown()).optional(),
});
export type Failure = z.infer<typeof FailureSchema>;

export const DecisionSchema = z.object({
  accepted: z.boolean(),
  reason: z.string(),
  /** Incumbent it was compared with (null for a seed accepted as the baseline). */
  against: z.string().nullable(),
  delta: z.number().optional(),
  ci: z.object({ lower: z.number(), upper: z.number(), level: z.number() }).optional(),
  decidedAt: z.string(),
});
export type Decision = z.infer<typeof DecisionSchema>;

/**
 * `programs/<id>.json`. Status moves proposed → evaluated → accepted | rejected, or proposed → failed; a
 * proposal whose edits did not apply or compile is stored as `invalid` directly (with its failure).
 */
export const ProgramRecordSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    kind: z.enum(['seed', 'proposal', 'control']),
    iteration: z.number().int().nonnegative(),
    /** Repair attempt within the iteration (0 = first reply). */
    attempt: z.number().int().nonnegative(),
    parent: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** Who made it (`seed:<path>`, `offline:<operator>`, `llm:<model>`…). */
    proposer: z.string().optional(),
    /** Edit operations as the proposer emitted them (validated edit ops unless the reply itself was invalid). */
    edits: z.array(z.unknown()),
    applied: z.array(AppliedEditSchema).optional(),
    rationale: z.string().optional(),
    /** Failure category the proposal says it targets. */
    targets: z.enum(FAILURE_CATEGORIES).optional(),
    /** sha256 of the source (or, without a source, of the edits): the id's content part. */
    contentHash: z.string().regex(/^[0-9a-f]{64}$/),
    hasSource: z.boolean(),
    status: ProgramStatus,
    failure: FailureSchema.optional(),
    scores: ScoresSchema.optional(),
    decision: DecisionSchema.optional(),
    cost: CostSchema,
  })
  .superRefine((p, ctx) => {
    const need = (cond: boolean, message: string): void => {
      if (!cond) ctx.addIssue({ code: 'custom', message });
    };
    need(
      p.kind === 'seed' ? p.parent === null : p.parent !== null,
      p.kind === 'seed' ? 'a seed has no parent' : 'a proposal needs a parent',
    );
    need(!['evaluated', 'accepted', 'rejected'].includes(p.status) || p.scores !== undefined, `status ${p.status} needs scores`);
    need(
      !['accepted', 'rejected'].includes(p.status) || p.decision?.accepted === (p.status === 'accepted'),
      `status ${p.status} needs a matching decision`,
    );
    need(!['invalid', 'failed'].includes(p.status) || p.failure !== undefined, `status ${p.status} needs a failure`);
    need(p.status === 'invalid' || p.hasSource, `status ${p.status} needs a source`);
    if (p.status !== 'invalid' || p.failure?.stage !== 'propose') {
      p.edits.forEach((e, i) => need(EditOpSchema.safeParse(e).success, `edits.${i} is not a valid edit operation`));
    }
  });
export type ProgramRecord = z.infer<typeof ProgramRecordSchema>;

/**
 * A program's scores on the official test questions. The optimizer measures them once, after the search and outside
 * it (the search never sees the test split), and records them as a `test-scores` event.
 */
export const TestScoresSchema = z.object({
  program: z.string().min(1),
  /** Fitness under the run's objective. */
  value: z.number(),
  n: z.number().int().nonnegative(),
  /** accuracy, f1, recall@k, contextRecall, locomoF1… (whatever was measured). */
  metrics: z.record(z.string(), z.number()),
  /** True when the LLM budget ran out during this test: the scores are lower than the design earned. */
  budgetExhausted: z.boolean().optional(),
});
export type TestScores = z.infer<typeof TestScoresSchema>;

/** Message of the `note` event that carried test scores before the typed event existed; still read in old runs. */
export const LEGACY_TEST_SCORES_NOTE = 'official-test-scores';

const EventBase = { seq: z.number().int().positive(), at: z.string() };

/** One line of `events.jsonl`: the run's timeline. Program files are the state; events say what happened when. */
export const EventSchema = z.discriminatedUnion('type', [
  z.object({ ...EventBase, type: z.literal('run-created'), run: z.string() }),
  z.object({ ...EventBase, type: z.literal('run-resumed'), pending: z.array(z.string()), lastIteration: z.number().int() }),
  z.object({
    ...EventBase,
    type: z.literal('program-added'),
    program: z.string(),
    iteration: z.number().int(),
    parent: z.string().nullable(),
    status: ProgramStatus,
  }),
  z.object({ ...EventBase, type: z.literal('program-evaluated'), program: z.string(), score: z.number() }),
  z.object({ ...EventBase, type: z.literal('program-failed'), program: z.string(), stage: z.string(), message: z.string() }),
  z.object({ ...EventBase, type: z.literal('program-decided'), program: z.string(), accepted: z.boolean(), reason: z.string() }),
  z.object({
    ...EventBase,
    type: z.literal('diagnosis-recorded'),
    program: z.string(),
    dominant: z.string().nullable(),
    failures: z.number().int(),
  }),
  z.object({
    ...EventBase,
    type: z.literal('iteration-finished'),
    iteration: z.number().int(),
    best: z.string().nullable(),
    bestScore: z.number().nullable(),
  }),
  z.object({ ...EventBase, type: z.literal('run-stopped'), reason: z.string() }),
  z.object({ ...EventBase, type: z.literal('test-scores'), ...TestScoresSchema.shape }),
  z.object({ ...EventBase, type: z.literal('note'), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
]);
export type ArchiveEvent = z.infer<typeof EventSchema>;

/** An event as the caller appends it: `seq` and `at` are filled in by the archive. */
export type NewEvent = ArchiveEvent extends infer E ? (E extends ArchiveEvent ? Omit<E, 'seq' | 'at'> : never) : never;
