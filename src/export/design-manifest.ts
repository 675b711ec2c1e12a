import { z } from 'zod';

/** Version of the `design.json` layout. */
export const EXPORT_FORMAT = 1;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** Scores of the exported program on one question set. */
export const ExportScoresSchema = z.object({
  /** Fitness under the run's objective (what the optimizer compared). */
  value: z.number(),
  n: z.number().int().nonnegative(),
  metrics: z.record(z.string(), z.number()),
});
export type ExportScores = z.infer<typeof ExportScoresSchema>;

/** One ancestor of the exported program (root seed first, the program last). */
export const LineageEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['seed', 'proposal', 'control']),
  iteration: z.number().int().nonnegative(),
  status: z.string(),
  proposer: z.string().optional(),
  rationale: z.string().optional(),
  /** Validation fitness, when it was evaluated. */
  score: z.number().nullable(),
});
export type LineageEntry = z.infer<typeof LineageEntrySchema>;

/**
 * `design.json`, written beside an exported `design.ts`: where the design came from and how it scored, so an app
 * (and a reviewer) can trace it back to its run. `createMemory` reads `budget` from it as the default.
 */
export const ExportManifestSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  exportedAt: z.string(),
  /** memsteer version that exported it (and that the run was made with). */
  memsteer: z.object({ exported: z.string(), run: z.string() }),
  run: z.object({
    name: z.string(),
    /** Absolute path of the run directory at export time. */
    dir: z.string(),
    createdAt: z.string(),
    gitCommit: z.string().nullable(),
    models: z.record(z.string(), z.string()),
  }),
  program: z.object({
    id: z.string(),
    kind: z.enum(['seed', 'proposal', 'control']),
    iteration: z.number().int().nonnegative(),
    status: z.string(),
    parent: z.string().nullable(),
    proposer: z.string().optional(),
    rationale: z.string().optional(),
    /** True when the exported program is the run's best accepted program. */
    best: z.boolean(),
  }),
  lineage: z.array(LineageEntrySchema).min(1),
  objective: z.string(),
  scores: z.object({
    /** Validation scores on the run's generated supervision (null when the program was never evaluated). */
    val: ExportScoresSchema.nullable(),
    /** Official test QA, when the run recorded it. */
    test: ExportScoresSchema.nullable(),
  }),
  history: z.object({
    /** The history source the run optimized on (`<format>:<path>[#<history>]`). */
    source: z.string(),
    /** The supervision file it was optimized on. */
    supervision: z.string().nullable(),
  }),
  /** The context budget the design was optimized and scored under. */
  budget: z.object({ tokens: z.number().int().positive() }),
  source: z.object({
    file: z.string(),
    /** sha256 of the exported design.ts. */
    sha256: Sha256,
    /** sha256 of the program's source in the archive (contract import as archived). */
    archivedSha256: Sha256,
    /** sha256 of the type-erased JavaScript: the same for both sources, so the export runs the evaluated program. */
    compiledSha256: Sha256,
  }),
});
export type ExportManifest = z.infer<typeof ExportManifestSchema>;
