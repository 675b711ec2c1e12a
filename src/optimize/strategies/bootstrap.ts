import type { Rng } from '../../util/rng.ts';

/** Result of a paired bootstrap over per-question differences. */
export interface PairedBootstrapResult {
  /** Mean of (a − b) over the paired questions. */
  mean: number;
  /** Percentile confidence interval of the mean difference. */
  lower: number;
  upper: number;
  level: number;
  /** Paired questions. */
  n: number;
  resamples: number;
  /** Share of resamples whose mean difference is above 0 (ties count half): how often a beats b. */
  pBetter: number;
}

/**
 * Paired bootstrap of the mean difference a[i] − b[i]: resample questions with replacement `resamples` times and
 * take the percentile interval at `level`. Pairing matters: two designs answer the same questions, so the
 * question-to-question variance cancels and small real gains become visible.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { rng: Rng; resamples?: number; level?: number },
): PairedBootstrapResult {
  if (a.length !== b.length) throw new RangeError(`pairedBootstrap: ${a.length} vs ${b.length} scores; pass paired arrays`);
  const { resamples, level } = settings('pairedBootstrap', options);
  const n = a.length;
  if (n === 0) return { mean: 0, lower: 0, upper: 0, level, n, resamples, pBetter: 0.5 };
  const d = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    d[i] = a[i]! - b[i]!;
    sum += d[i]!;
  }
  const means = new Float64Array(resamples);
  let better = 0;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[options.rng.int(n)]!;
    means[r] = s / n;
    better += win(means[r]!);
  }
  return { mean: sum / n, ...percentileInterval(means, level), level, n, resamples, pBetter: better / resamples };
}

/** Result of a bootstrap over search runs (RNG seeds) and questions. */
export interface SeedBootstrapResult extends PairedBootstrapResult {
  /** Runs (RNG seeds) pooled. */
  runs: number;
  /** Each run's own mean difference, in the order given. */
  runMeans: number[];
}

/**
 * Two-level bootstrap of the mean paired difference over several search runs: `rows[s][q]` is run s's difference on
 * question q (every row over the same questions, in the same order). Each resample draws runs with replacement and,
 * independently, questions with replacement, and takes the mean over both. The interval so widens with how much the
 * runs disagree (a search's luck), not only with which questions were asked; with one run it reduces to the paired bootstrap.
 */
export function seedBootstrap(
  rows: ReadonlyArray<readonly number[]>,
  options: { rng: Rng; resamples?: number; level?: number },
): SeedBootstrapResult {
  const k = rows.length;
  if (k === 0) throw new RangeError('seedBootstrap: no runs');
  const n = rows[0]!.length;
  if (rows.some((r) => r.length !== n)) throw new RangeError('seedBootstrap: every run must score the same questions');
  const { resamples, level } = settings('seedBootstrap', options);
  const runMeans = rows.map((r) => (n ? r.reduce((a, b) => a + b, 0) / n : 0));
  const mean = runMeans.reduce((a, b) => a + b, 0) / k;
  if (n === 0) return { mean: 0, lower: 0, upper: 0, level, n, resamples, pBetter: 0.5, runs: k, runMeans };
  const counts = new Uint32Array(n);
  const perRun = new Float64Array(k);
  const means = new Float64Array(resamples);
  let better = 0;
  for (let r = 0; r < resamples; r++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[options.rng.int(n)]!++;
    // Each run's mean over this question draw once, then the run draw picks among them.
    for (let j = 0; j < k; j++) {
      let t = 0;
      for (let i = 0; i < n; i++) if (counts[i]) t += counts[i]! * rows[j]![i]!;
      perRun[j] = t / n;
    }
    let s = 0;
    for (let j = 0; j < k; j++) s += perRun[options.rng.int(k)]!;
    means[r] = s / k;
    better += win(means[r]!);
  }
  return { mean, ...percentileInterval(means, level), level, n, resamples, pBetter: better / resamples, runs: k, runMeans };
}

/** Result of a bootstrap of the difference between the means of two independent samples. */
export interface MeanDifferenceBootstrapResult {
  /** mean(a) − mean(b), each pooled over its strata. */
  mean: number;
  /** Percentile confidence interval of the difference. */
  lower: number;
  upper: number;
  level: number;
  /** Scores in a and in b. */
  nA: number;
  nB: number;
  resamples: number;
}

/**
 * Bootstrap of mean(a) − mean(b) for two unpaired samples, each given as strata (e.g. one array per history):
 * every resample redraws each stratum of each sample with replacement at its own size, so a pooled mean keeps the
 * strata's weights and the interval reflects only which items were drawn. Empty strata are skipped; a sample with no
 * scores at all is an error, since the difference is then undefined.
 */
export function meanDifferenceBootstrap(
  a: ReadonlyArray<readonly number[]>,
  b: ReadonlyArray<readonly number[]>,
  options: { rng: Rng; resamples?: number; level?: number },
): MeanDifferenceBootstrapResult {
  const { resamples, level } = settings('meanDifferenceBootstrap', options);
  const sa = a.filter((s) => s.length);
  const sb = b.filter((s) => s.length);
  const nA = sa.reduce((t, s) => t + s.length, 0);
  const nB = sb.reduce((t, s) => t + s.length, 0);
  if (!nA || !nB) throw new RangeError(`meanDifferenceBootstrap: ${nA} scores in a and ${nB} in b; both need some`);
  const total = (strata: ReadonlyArray<readonly number[]>) => strata.reduce((t, s) => t + s.reduce((u, x) => u + x, 0), 0);
  const draw = (strata: ReadonlyArray<readonly number[]>) => {
    let t = 0;
    for (const s of strata) for (let i = 0; i < s.length; i++) t += s[options.rng.int(s.length)]!;
    return t;
  };
  const diffs = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) diffs[r] = draw(sa) / nA - draw(sb) / nB;
  return { mean: total(sa) / nA - total(sb) / nB, ...percentileInterval(diffs, level), level, nA, nB, resamples };
}

/** The percentile interval at `level` of resampled means (sorted in place). */
function percentileInterval(means: Float64Array, level: number): { lower: number; upper: number } {
  means.sort();
  const alpha = (1 - level) / 2;
  const lo = Math.max(0, Math.floor(alpha * means.length + 1e-9));
  const hi = Math.min(means.length - 1, Math.ceil((1 - alpha) * means.length - 1e-9) - 1);
  return { lower: means[lo]!, upper: means[Math.max(lo, hi)]! };
}

/** Resamples and level, defaulted and checked; errors name the caller. */
function settings(fn: string, options: { resamples?: number; level?: number }): { resamples: number; level: number } {
  const resamples = options.resamples ?? 1000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`${fn}: resamples must be a positive integer, got ${resamples}`);
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`${fn}: level must be in (0, 1), got ${level}`);
  return { resamples, level };
}

/** A resample's vote for "a beats b": above zero 1, a tie ½, below 0. */
function win(mean: number): number {
  return mean > 1e-12 ? 1 : Math.abs(mean) <= 1e-12 ? 0.5 : 0;
}
