/**
 * The code-vs-config comparison over several RNG seeds. One 20-iteration search moves by several points with its
 * random choices (which move is tried first, which candidate a tie keeps), so a single seed's interval says how sure
 * the difference is over questions, not over searches. This runs `runCompare` once per seed and pools the runs with a
 * two-level bootstrap (runs and questions resampled), the figure a claim about the method should quote.
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { MemsteerError } from '../errors.ts';
import { writeFileAtomic } from '../util/atomic-write.ts';
import { createRng, deriveSeed } from '../util/rng.ts';
import {
  CompareReportSchema,
  DifferenceSchema,
  runCompare,
  type CompareHooks,
  type CompareOptionsInput,
  type CompareReport,
} from './compare.ts';
import { seedBootstrap } from './strategies/bootstrap.ts';

/** The pooled difference a − b over the runs of several RNG seeds. */
export const PooledDifferenceSchema = DifferenceSchema.extend({
  /** Runs (RNG seeds) pooled; `n` counts the questions every run scored, `mean` is over runs and questions. */
  runs: z.number().int().positive(),
  /** Each run's mean difference, in seed order. */
  runMeans: z.array(z.number()),
});
export type PooledDifference = z.infer<typeof PooledDifferenceSchema>;

/** What `memsteer compare --rng-seeds` writes to <out>/compare-seeds.json. */
export const CompareSeedsReportSchema = z.object({
  rngSeeds: z.array(z.number().int()).min(1),
  /** Each seed's comparison: <out>/seed-<n>/compare.json, without the per-question scores. */
  runs: z.array(CompareReportSchema.omit({ perQuestion: true }).extend({ dir: z.string() })),
  pooled: z.array(PooledDifferenceSchema),
  ms: z.number(),
});
export type CompareSeedsReport = z.infer<typeof CompareSeedsReportSchema>;

/** Where one seed's comparison goes inside the pooled comparison's folder. */
export function seedDir(out: string, rngSeed: number): string {
  return join(resolve(out), `seed-${rngSeed}`);
}

/**
 * Pools comparisons that differ only in their RNG seed. Only questions every run scored count, so the rows pair up;
 * reports without per-question scores (written before they were kept) cannot be pooled.
 */
export function poolCompareReports(
  reports: readonly CompareReport[],
  options: { resamples?: number; level?: number } = {},
): PooledDifference[] {
  if (reports.length === 0) throw new MemsteerError('E_BAD_OPTION', 'nothing to pool: no comparison runs');
  for (const r of reports)
    if (!r.perQuestion)
      throw new MemsteerError('E_BAD_OPTION', `the comparison with RNG seed ${r.rngSeed} kept no per-question scores; run it again`);
  const first = reports[0]!;
  return first.differences.map((d) => {
    const rows = reports.map((r) => ({ a: r.perQuestion![d.a] ?? {}, b: r.perQuestion![d.b] ?? {} }));
    // Sorted keys: the resampling must not depend on the order questions were evaluated in.
    const keys = Object.keys(rows[0]!.a)
      .filter((k) => rows.every((row) => row.a[k] !== undefined && row.b[k] !== undefined))
      .sort();
    const r = seedBootstrap(
      rows.map((row) => keys.map((k) => row.a[k]! - row.b[k]!)),
      {
        rng: createRng(deriveSeed(first.rngSeed, 'compare-seeds', d.a, d.b)),
        resamples: options.resamples ?? d.resamples,
        level: options.level ?? d.level,
      },
    );
    return { a: d.a, b: d.b, split: d.split, ...r };
  });
}

/**
 * Runs the comparison once per RNG seed (each in <out>/seed-<n>/, all else equal) and pools the runs. Writes
 * <out>/compare-seeds.json (validated).
 */
export async function runCompareSeeds(
  input: Omit<CompareOptionsInput, 'rngSeed'>,
  rngSeeds: readonly number[],
  hooks: CompareHooks & { onSeed?: (rngSeed: number, phase: 'start' | 'done') => void } = {},
): Promise<CompareSeedsReport> {
  if (rngSeeds.length === 0 || new Set(rngSeeds).size !== rngSeeds.length)
    throw new MemsteerError('E_BAD_OPTION', `--rng-seeds needs distinct seeds, got ${rngSeeds.join(',') || 'none'}`);
  const started = performance.now();
  const reports: CompareReport[] = [];
  for (const rngSeed of rngSeeds) {
    hooks.onSeed?.(rngSeed, 'start');
    reports.push(await runCompare({ ...input, rngSeed, out: seedDir(input.out, rngSeed) }, hooks));
    hooks.onSeed?.(rngSeed, 'done');
  }
  const report = CompareSeedsReportSchema.parse({
    rngSeeds: [...rngSeeds],
    runs: reports.map(({ perQuestion: _kept, ...r }) => ({ ...r, dir: seedDir(input.out, r.rngSeed) })),
    pooled: poolCompareReports(reports, { resamples: input.resamples, level: input.level }),
    ms: performance.now() - started,
  });
  writeFileAtomic(join(resolve(input.out), 'compare-seeds.json'), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}
