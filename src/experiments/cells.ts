/**
 * One optimization run of an experiment (a "cell"): runOptimize, offline, on a supervision set, with every run
 * sharing one evaluation cache and each finished run remembered by the hash of everything that determines it,
 * so experiments that need the same run (the checks ablation's "with checks" arm is the main table's
 * generated-supervision run) pay for it once, and a rerun of the bench only runs what changed or never finished.
 */
import type { QueueStatus } from '../pool/queue-pool.ts';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { openArchive } from '../archive/index.ts';
import type { QAItem } from '../history/record.ts';
import { QAItemSchema } from '../history/record.ts';
import { runOptimize, type OptimizeConfigInput } from '../optimize/run-optimize.ts';
import type { FeedbackMode, SearchEvent } from '../optimize/search-loop.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { writeJsonl } from '../util/jsonl.ts';
import type { Workspace } from './workspace.ts';

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * runOptimize evaluates the seed and the best design on every official question of the loaded histories; the
 * bench evaluates official QA itself, one history at a time, so those evaluations are shared across experiments
 * through the cache. A category no official item has leaves the run's test split empty, which skips them.
 */
export const NO_OFFICIAL_TEST = 'memsteer-bench:official-qa-evaluated-by-the-bench';

/** What a cell runs. */
export interface CellSpec {
  /** Readable part of the run directory's name (`locomo-main-generated`). */
  name: string;
  /** History source string (all of the dataset; the supervision decides which histories the search uses). */
  history: string;
  supervision: readonly QAItem[];
  /** Seed design source (Base-BM25, or a design carried over for transfer). */
  seedSource: string;
  feedback: FeedbackMode;
  iterations: number;
  rngSeed: number;
  contextBudget: number;
  jobs?: number;
  /** A Redis queue to evaluate on (not part of the cell's key: where it runs does not change its result). */
  queue?: string;
}

export const CellResultSchema = z.object({
  name: z.string(),
  key: z.string(),
  /** Run directory, relative to the bench output. */
  run: z.string(),
  seed: z.object({ id: z.string(), valFitness: z.number() }),
  best: z.object({ id: z.string(), valFitness: z.number() }),
  bestSource: z.string(),
  accepted: z.number().int().nonnegative(),
  proposals: z.number().int().nonnegative(),
  stopReason: z.string(),
  train: z.number().int().nonnegative(),
  val: z.number().int().nonnegative(),
  seconds: z.number().nonnegative(),
});
export type CellResult = z.infer<typeof CellResultSchema> & { reused: boolean };

const CELL_FILE = 'bench-cell.json';

/** Runs (or resumes, or reuses) the cell's optimization. `onEvent` gets the search's progress. */
export async function runCell(
  ws: Workspace,
  spec: CellSpec,
  onEvent?: (e: SearchEvent) => void,
  onQueueStatus?: (s: QueueStatus) => void,
): Promise<CellResult> {
  const started = performance.now();
  // Canonical form (schema key order), so the same items read from a file or fresh from the generator hash alike.
  const supText = spec.supervision.map((q) => JSON.stringify(QAItemSchema.parse(q))).join('\n');
  const supPath = join(ws.supervisionDir, `${spec.name}-${sha(supText).slice(0, 12)}.jsonl`);
  if (!existsSync(supPath)) writeJsonl(supPath, spec.supervision, QAItemSchema);
  const seedPath = join(ws.designsDir, `${sha(spec.seedSource).slice(0, 12)}.ts`);
  if (!existsSync(seedPath)) writeFileAtomic(seedPath, spec.seedSource);

  const config: OptimizeConfigInput = {
    history: spec.history,
    supervision: supPath,
    seed: seedPath,
    iterations: spec.iterations,
    offline: true,
    rngSeed: spec.rngSeed,
    feedback: spec.feedback,
    contextBudget: spec.contextBudget,
    testCategories: [NO_OFFICIAL_TEST],
    ...(spec.jobs ? { jobs: spec.jobs } : {}),
  };
  // Content, not names or paths, identifies a run: another experiment asking for the same run finds it.
  const { supervision: _s, seed: _d, ...settings } = config;
  const key = sha(JSON.stringify({ settings, sup: sha(supText), seed: sha(spec.seedSource) })).slice(0, 10);
  const existing = readdirSync(ws.runsDir).find((d) => d.endsWith(`-${key}`));
  const dir = join(ws.runsDir, existing ?? `${spec.name}-${key}`);
  const cellFile = join(dir, CELL_FILE);
  if (existsSync(cellFile)) {
    const parsed = CellResultSchema.safeParse(JSON.parse(readFileSync(cellFile, 'utf8')));
    if (parsed.success && parsed.data.key === key) return { ...parsed.data, reused: true };
  }
  mkdirSync(dir, { recursive: true });
  // The cache key covers program, histories, questions, answerer and budget, so sharing it across runs is safe.
  if (!existsSync(join(dir, 'eval-cache'))) symlinkSync(relative(dir, ws.cacheDir), join(dir, 'eval-cache'), 'dir');
  const resume = existsSync(join(dir, 'manifest.json'));
  const report = await runOptimize({
    out: dir,
    resume,
    ...(resume ? {} : { config }),
    llm: null,
    ...(spec.queue ? { queue: spec.queue, ...(onQueueStatus ? { onQueueStatus } : {}) } : {}),
    ...(onEvent ? { onEvent } : {}),
  });
  const counts = {
    train: spec.supervision.filter((q) => q.split === 'train').length,
    val: spec.supervision.filter((q) => q.split === 'val').length,
  };
  const result = CellResultSchema.parse({
    name: spec.name,
    key,
    run: relative(ws.out, dir),
    seed: { id: report.seed.id, valFitness: report.seed.val.fitness },
    best: { id: report.best.id, valFitness: report.best.val.fitness },
    bestSource: openArchive(dir).source(report.best.id),
    accepted: report.accepted,
    proposals: report.proposals,
    stopReason: report.stopReason,
    ...counts,
    seconds: (performance.now() - started) / 1000,
  });
  writeFileAtomic(cellFile, `${JSON.stringify(result, null, 2)}\n`);
  return { ...result, reused: false };
}
