/**
 * Paired bootstrap over per-question scores of two designs on the same questions: is A better than B, and by
 * how much? Seeded, so an optimizer run is reproducible.
 */
import { InputError } from '../errors.ts';

export interface PairedBootstrapResult {
  /** mean(a) − mean(b). */
  meanDiff: number;
  /** 2.5th and 97.5th percentiles of the resampled mean differences. */
  ci95: [number, number];
  /** Share of resamples in which A's mean beats B's (ties count half). */
  pBetter: number;
}

/** mulberry32: a small, fast, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Resamples question indices with replacement `iterations` times (default 1000, seed 0) and compares the two
 * means on each resample. `a[i]` and `b[i]` must score the same question.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { iterations?: number; seed?: number } = {},
): PairedBootstrapResult {
  if (a.length !== b.length) throw new InputError('bootstrap-unpaired', `paired bootstrap needs equal lengths, got ${a.length} and ${b.length}`);
  const n = a.length;
  if (n === 0) return { meanDiff: 0, ci95: [0, 0], pBetter: 0.5 };
  const diff = a.map((x, i) => x - b[i]!);
  const meanDiff = diff.reduce((s, d) => s + d, 0) / n;
  const iterations = options.iterations ?? 1000;
  const rand = seededRandom(options.seed ?? 0);
  const means: number[] = [];
  let better = 0;
  for (let it = 0; it < iterations; it++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += diff[Math.floor(rand() * n)]!;
    const m = s / n;
    means.push(m);
    if (m > 1e-12) better += 1;
    else if (Math.abs(m) <= 1e-12) better += 0.5;
  }
  means.sort((x, y) => x - y);
  return { meanDiff, ci95: [quantile(means, 0.025), quantile(means, 0.975)], pBetter: better / iterations };
}
