import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { compileDesign } from '../design/compile.ts';
import { MemsteerError } from '../errors.ts';
import { createEvalPool } from '../evaluate/evaluate.ts';
import type { QueueStatus } from '../pool/queue-pool.ts';
import { queueRunId } from '../pool/queue-wire.ts';
import { loadHistories } from '../history/load.ts';
import type { History } from '../history/record.ts';
import { openLlmClient } from '../llm/client.ts';
import type { LlmClient } from '../llm/types.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { acquireRunLock, openArchive, sha256 } from '../archive/index.ts';
import { createRunEvaluator } from './pool-evaluator.ts';
import { createRng, deriveSeed } from '../util/rng.ts';
import { loadSplits, runOptimize, type OptimizeConfigInput, type OptimizeReport, type SplitScores } from './run-optimize.ts';
import type { SearchEvent } from './search-loop.ts';
import { pairedBootstrap } from './strategies/bootstrap.ts';
import {
  ContextBudget,
  count,
  ItemLimit,
  Iterations,
  Jobs,
  LIMITS,
  Objective,
  OfflineMoves,
  QueueUrl,
  RngSeed,
  SearchSpace,
} from '../config/run-options.ts';

/**
 * Code search and config search from the same start (see {@link DEFAULT_COMPARE_SEED}).
 *
 * Why both arms start from seeds/configurable.ts and not code search from seeds/base-bm25.ts: "the same start"
 * should mean the same seed source, so the two arms begin at exactly the same program and score, and any
 * difference is the search space's doing. configurable.ts is a valid code-search seed: its defaults behave as
 * Base-BM25 and it keeps the Base-BM25 family's helper names, so every catalog operator of the code proposer still
 * applies, and code search may also edit the config constants (a code edit can do anything a config change can).
 * The cost, measured on LoCoMo: once its catalog is spent, the offline code proposer's constant tweaks land on knobs
 * of features that are off (EMBEDDING_WEIGHT of a BM25-only retriever…), which change nothing. `codeSeed`
 * (e.g. seeds/base-bm25.ts, the same behaviour without those knobs) runs code search from the same behaviour instead.
 */
export const DEFAULT_COMPARE_SEED = fileURLToPath(new URL('../../seeds/configurable.ts', import.meta.url));

/** The arms of a comparison. `control` is best-of-N in code space: every proposal from the seed, no archive conditioning. */
export const ArmName = z.enum(['code', 'config', 'control']);
export type ArmName = z.infer<typeof ArmName>;

export const CompareOptionsSchema = z.object({
  history: z.string().min(1),
  supervision: z.string().min(1),
  /** Where the arms' runs go: <out>/code, <out>/config, <out>/control, and compare.json. */
  out: z.string().min(1),
  seed: z.string().default(DEFAULT_COMPARE_SEED),
  /**
   * Seed of the code and control arms when it should differ from `seed` (e.g. seeds/base-bm25.ts, which behaves
   * exactly as configurable.ts's defaults but has no inactive constants for the offline code proposer to tweak).
   */
  codeSeed: z.string().optional(),
  /** Iterations per arm (each arm gets the same). */
  iterations: Iterations.default(10),
  /** Proposals per arm (repairs count), when set. */
  maxProposals: Iterations.optional(),
  /** LLM tokens per arm, when set. */
  budgetTokens: count(LIMITS.tokens).optional(),
  control: z.boolean().default(false),
  /** The offline code arm's moves (the config arm has its own proposer). */
  moves: OfflineMoves.default('case-driven'),
  /** Parent selection of every arm (a spec of parentSelectorFromSpec). */
  select: z.string().default('greedy'),
  /** Acceptance of every arm (a spec of acceptanceFromSpec): `better[:epsilon]` or `bootstrap[:level]`. */
  accept: z.string().default('better'),
  offline: z.boolean().default(false),
  objective: Objective.optional(),
  rngSeed: RngSeed,
  contextBudget: ContextBudget,
  testCategories: z.array(z.string()).default([]),
  limit: ItemLimit,
  jobs: Jobs,
  /** Evaluate on `memsteer worker`s through this Redis queue instead of local processes. */
  queue: QueueUrl.optional(),
  /** Bootstrap resamples and confidence level of the difference's interval. */
  resamples: z.number().int().positive().default(2000),
  level: z.number().gt(0).lt(1).default(0.95),
});
export type CompareOptions = z.infer<typeof CompareOptionsSchema>;
export type CompareOptionsInput = z.input<typeof CompareOptionsSchema>;

const SplitScoresSchema = z.object({
  fitness: z.number(),
  n: z.number().int(),
  recallAt10: z.number().nullable(),
  contextRecall: z.number().nullable(),
  accuracy: z.number(),
  f1: z.number(),
  locomoF1: z.number().nullable(),
});
export type CompareScores = z.infer<typeof SplitScoresSchema>;

/** One iteration of an arm: the candidate's validation score (null when it never got one) and the best so far. */
const TrajectoryPointSchema = z.object({
  iteration: z.number().int().positive(),
  candidate: z.number().nullable(),
  accepted: z.boolean(),
  bestSoFar: z.number(),
});

export const ArmReportSchema = z.object({
  arm: ArmName,
  space: SearchSpace,
  dir: z.string(),
  stopReason: z.string(),
  trajectory: z.array(TrajectoryPointSchema),
  seed: z.object({ id: z.string(), val: SplitScoresSchema, test: SplitScoresSchema.nullable() }),
  best: z.object({ id: z.string(), val: SplitScoresSchema, test: SplitScoresSchema.nullable() }),
  accepted: z.number().int(),
  proposals: z.number().int(),
  tokens: z.number().int(),
  diff: z.string(),
  ms: z.number(),
  /** sha256 of the best design's source. */
  bestHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The first arm (in arm order) whose best design has the same source, or null: whether the arms' designs differ. */
  sameDesignAs: ArmName.nullable(),
});
export type ArmReport = z.infer<typeof ArmReportSchema>;

/** The paired bootstrap of a − b over per-question fitness of the two arms' best designs. */
export const DifferenceSchema = z.object({
  a: ArmName,
  b: ArmName,
  split: z.enum(['test', 'val']),
  n: z.number().int(),
  mean: z.number(),
  lower: z.number(),
  upper: z.number(),
  level: z.number(),
  resamples: z.number().int(),
  /** Share of resamples in which a beats b (ties half). */
  pBetter: z.number(),
});
export type Difference = z.infer<typeof DifferenceSchema>;

export const CompareReportSchema = z.object({
  seed: z.string(),
  codeSeed: z.string(),
  objective: Objective,
  rngSeed: z.number().int(),
  /** Every arm's acceptance rule (reports written before it was recorded used `better`). */
  accept: z.string().default('better'),
  iterations: z.number().int(),
  budgetTokens: z.number().int().nullable(),
  maxProposals: z.number().int().nullable(),
  /** The histories the arms searched and were tested on. */
  histories: z.array(z.string()),
  arms: z.array(ArmReportSchema),
  /** code − config always; code − control and config − control with the control arm. */
  differences: z.array(DifferenceSchema),
  /**
   * Each arm's best design's fitness per question of the compared split, keyed as the evaluator keys questions: what
   * the differences were computed from, kept so runs with other RNG seeds can be pooled (compare-seeds.ts). Absent
   * from reports written before it was kept.
   */
  perQuestion: z.partialRecord(ArmName, z.record(z.string(), z.number())).optional(),
  ms: z.number(),
});
export type CompareReport = z.infer<typeof CompareReportSchema>;

export interface CompareHooks {
  onArm?: (arm: ArmName, phase: 'start' | 'done') => void;
  onEvent?: (arm: ArmName, e: SearchEvent) => void;
  /** With `queue`: workers connected and groups waiting, every second while an arm's groups are out. */
  onQueueStatus?: (arm: ArmName, s: QueueStatus) => void;
  /** An LLM client shared by all arms; by default one is opened from the environment (none when offline). */
  llm?: LlmClient | null;
  /**
   * The histories of `history`, when the caller has loaded them already (possibly a subset of them, e.g. the held-out
   * ones); by default they are all loaded once here.
   */
  histories?: History[];
}

/**
 * Runs code search and config search (and, when asked, the best-of-N control) with the same seed source,
 * supervision, RNG seed and budget, one after the other, then compares their best designs question by question:
 * on the official QA (test split) when the histories have any, else on the validation split. Writes
 * <out>/compare.json (validated) beside the arms' runs.
 */
export async function runCompare(input: CompareOptionsInput, hooks: CompareHooks = {}): Promise<CompareReport> {
  const options = CompareOptionsSchema.parse(input);
  // The comparison's folder is locked as a whole (each arm's run also locks its own folder).
  const lock = acquireRunLock(resolve(options.out), { command: 'compare' });
  try {
    return await compareArms(options, hooks);
  } finally {
    lock.release();
  }
}

async function compareArms(options: CompareOptions, hooks: CompareHooks): Promise<CompareReport> {
  const started = performance.now();
  const out = resolve(options.out);
  const llm = options.offline ? null : hooks.llm !== undefined ? hooks.llm : openLlmClient();
  const arms: ArmName[] = options.control ? ['code', 'config', 'control'] : ['code', 'config'];
  // Loaded once for every arm's search and the paired comparison below.
  // A caller may pass a subset of the source's histories (memsteer compare --exclude-dev): the arms then search and
  // are tested on those only, and their supervision items about the others are not used.
  const histories = hooks.histories ?? (await loadHistories(options.history));

  const common: Omit<OptimizeConfigInput, 'seed'> = {
    history: options.history,
    supervision: options.supervision,
    iterations: options.iterations,
    select: options.select,
    accept: options.accept,
    offline: options.offline,
    rngSeed: options.rngSeed,
    contextBudget: options.contextBudget,
    testCategories: options.testCategories,
    ...(options.objective ? { objective: options.objective } : {}),
    ...(options.maxProposals ? { maxProposals: options.maxProposals } : {}),
    ...(options.budgetTokens ? { budgetTokens: options.budgetTokens } : {}),
    ...(options.limit ? { limit: options.limit } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
  };
  const reports = new Map<ArmName, { report: OptimizeReport; space: 'code' | 'config'; ms: number }>();
  for (const arm of arms) {
    const space = arm === 'config' ? 'config' : 'code';
    hooks.onArm?.(arm, 'start');
    const t0 = performance.now();
    const report = await runOptimize({
      out: join(out, arm),
      config: {
        ...common,
        seed: space === 'config' ? options.seed : (options.codeSeed ?? options.seed),
        space,
        ...(space === 'code' ? { moves: options.moves } : {}),
        control: arm === 'control',
      },
      llm,
      histories,
      ...(options.queue ? { queue: options.queue } : {}),
      ...(options.queue && hooks.onQueueStatus ? { onQueueStatus: (s: QueueStatus) => hooks.onQueueStatus!(arm, s) } : {}),
      ...(hooks.onEvent ? { onEvent: (e: SearchEvent) => hooks.onEvent!(arm, e) } : {}),
    });
    reports.set(arm, { report, space, ms: performance.now() - t0 });
    hooks.onArm?.(arm, 'done');
  }
  const objective = reports.get('code')!.report.objective;

  // Per-question fitness of each arm's best design, for the paired bootstrap. Each arm's own evaluation cache
  // holds these results already (runOptimize scored its best on val and test), so this re-pays nothing.
  const splits = loadSplits(options.supervision, histories, { limit: options.limit, testCategories: options.testCategories });
  const split: 'test' | 'val' = splits.test.some((q) => q.evidence.length > 0 || (objective !== 'evidence' && objective !== 'ranking'))
    ? 'test'
    : 'val';

  const perQuestion = new Map<ArmName, Record<string, number>>();
  const bestHash = new Map<ArmName, string>();
  const queue = options.queue ? { queue: { url: options.queue, runId: queueRunId(out) } } : {};
  const pool = createEvalPool({ ...(options.jobs ? { size: options.jobs } : {}), ...(llm ? { llm } : {}), ...queue });
  try {
    for (const arm of arms) {
      const { report } = reports.get(arm)!;
      const evaluator = createRunEvaluator({
        histories,
        questions: splits,
        pool,
        llm,
        contextBudget: options.contextBudget,
        objective,
        runDir: report.dir,
      });
      const bestSource = openArchive(report.dir).source(report.best.id);
      bestHash.set(arm, sha256(bestSource));
      const c = await compileDesign(bestSource);
      if (!c.ok)
        throw new MemsteerError(
          'E_ARCHIVED_COMPILE',
          `the best design of the ${arm} arm (${report.best.id}) no longer compiles: ${c.diagnostics[0]?.message ?? ''}`,
        );
      perQuestion.set(arm, (await evaluator.evaluate(c.program, split)).perQuestion);
    }
  } finally {
    await pool.close();
  }

  const difference = (a: ArmName, b: ArmName): Difference => {
    const pa = perQuestion.get(a)!;
    const pb = perQuestion.get(b)!;
    // Sorted keys: the resampling must not depend on the order questions were evaluated in.
    const keys = Object.keys(pa)
      .filter((k) => pb[k] !== undefined)
      .sort();
    const r = pairedBootstrap(
      keys.map((k) => pa[k]!),
      keys.map((k) => pb[k]!),
      { rng: createRng(deriveSeed(options.rngSeed, 'compare', a, b)), resamples: options.resamples, level: options.level },
    );
    return {
      a,
      b,
      split,
      n: r.n,
      mean: r.mean,
      lower: r.lower,
      upper: r.upper,
      level: r.level,
      resamples: r.resamples,
      pBetter: r.pBetter,
    };
  };
  const differences = [difference('code', 'config')];
  if (options.control) differences.push(difference('code', 'control'), difference('config', 'control'));

  const report: CompareReport = CompareReportSchema.parse({
    seed: options.seed,
    codeSeed: options.codeSeed ?? options.seed,
    objective,
    rngSeed: options.rngSeed,
    accept: options.accept,
    iterations: options.iterations,
    budgetTokens: options.budgetTokens ?? null,
    maxProposals: options.maxProposals ?? null,
    histories: histories.map((h) => h.id),
    arms: arms.map((arm, i) => ({
      ...armReport(arm, reports.get(arm)!),
      bestHash: bestHash.get(arm)!,
      sameDesignAs: arms.slice(0, i).find((a) => bestHash.get(a) === bestHash.get(arm)) ?? null,
    })),
    differences,
    perQuestion: Object.fromEntries(perQuestion),
    ms: performance.now() - started,
  });
  writeFileAtomic(join(out, 'compare.json'), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

function scoresOf(s: SplitScores): CompareScores {
  return {
    fitness: s.fitness,
    n: s.n,
    recallAt10: s.recallAt10,
    contextRecall: s.contextRecall,
    accuracy: s.accuracy,
    f1: s.f1,
    locomoF1: s.locomoF1,
  };
}

function armReport(
  arm: ArmName,
  r: { report: OptimizeReport; space: 'code' | 'config'; ms: number },
): Omit<ArmReport, 'bestHash' | 'sameDesignAs'> {
  const { report } = r;
  return {
    arm,
    space: r.space,
    dir: report.dir,
    stopReason: report.stopReason,
    trajectory: trajectoryOf(report),
    seed: { id: report.seed.id, val: scoresOf(report.seed.val), test: report.seed.test ? scoresOf(report.seed.test) : null },
    best: { id: report.best.id, val: scoresOf(report.best.val), test: report.best.test ? scoresOf(report.best.test) : null },
    accepted: report.accepted,
    proposals: report.proposals,
    tokens: report.cost.promptTokens + report.cost.completionTokens,
    diff: report.diff,
    ms: r.ms,
  };
}

/**
 * Best-so-far validation score per iteration. An iteration's candidate is its last attempt that got a score (a
 * repair replaces a failed attempt); best-so-far only rises on an accepted candidate, as the search itself decides.
 */
export function trajectoryOf(report: Pick<OptimizeReport, 'trajectory' | 'seed'>): Array<z.infer<typeof TrajectoryPointSchema>> {
  const last = Math.max(0, ...report.trajectory.map((t) => t.iteration));
  let best = report.seed.val.fitness;
  const points: Array<z.infer<typeof TrajectoryPointSchema>> = [];
  for (let i = 1; i <= last; i++) {
    const here = report.trajectory.filter((t) => t.iteration === i);
    const scored = here.filter((t) => t.score !== null);
    const accepted = here.find((t) => t.accepted);
    if (accepted && accepted.score !== null) best = Math.max(best, accepted.score);
    points.push({ iteration: i, candidate: scored.at(-1)?.score ?? null, accepted: Boolean(accepted), bestSoFar: best });
  }
  return points;
}
