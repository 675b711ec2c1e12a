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
  const resamples = options.resamples ?? 1000;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`pairedBootstrap: resamples must be a positive integer, got ${resamples}`);
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`pairedBootstrap: level must be in (0, 1), got ${level}`);
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
    better += means[r]! > 1e-12 ? 1 : Math.abs(means[r]!) <= 1e-12 ? 0.5 : 0;
  }
  means.sort();
  const alpha = (1 - level) / 2;
  const lo = Math.max(0, Math.floor(alpha * resamples + 1e-9));
  const hi = Math.min(resamples - 1, Math.ceil((1 - alpha) * resamples - 1e-9) - 1);
  return { mean: sum / n, lower: means[lo]!, upper: means[Math.max(lo, hi)]!, level, n, resamples, pBetter: better / resamples };
}
