/**
 * Pooling a comparison over RNG seeds: the two-level bootstrap (runs and questions resampled) and pooling the
 * per-question scores that each seed's compare.json keeps.
 */
import { describe, expect, it } from 'vitest';
import { poolCompareReports } from '../src/optimize/compare-seeds.ts';
import type { CompareReport } from '../src/optimize/compare.ts';
import { pairedBootstrap, seedBootstrap } from '../src/optimize/strategies/bootstrap.ts';
import { createRng } from '../src/util/rng.ts';

const noisy = (n: number, shift: number, seed: number): number[] => {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => shift + (rng.next() - 0.5));
};

describe('seedBootstrap', () => {
  it('with one run is the paired bootstrap of that run', () => {
    const d = noisy(400, 0.05, 3);
    const one = seedBootstrap([d], { rng: createRng(1), resamples: 2000 });
    const paired = pairedBootstrap(d, new Array(400).fill(0), { rng: createRng(2), resamples: 2000 });
    expect(one.mean).toBeCloseTo(paired.mean, 12);
    expect(one.runs).toBe(1);
    expect(Math.abs(one.lower - paired.lower)).toBeLessThan(0.01);
    expect(Math.abs(one.upper - paired.upper)).toBeLessThan(0.01);
  });

  it('averages the runs, and widens the interval when the runs disagree', () => {
    const agree = [noisy(300, 0.04, 1), noisy(300, 0.04, 2), noisy(300, 0.04, 3)];
    const disagree = [noisy(300, -0.06, 1), noisy(300, 0.04, 2), noisy(300, 0.14, 3)];
    const a = seedBootstrap(agree, { rng: createRng(5), resamples: 2000 });
    const b = seedBootstrap(disagree, { rng: createRng(5), resamples: 2000 });
    expect(b.mean).toBeCloseTo(b.runMeans.reduce((x, y) => x + y, 0) / 3, 12);
    expect(b.runMeans[0]).toBeLessThan(0);
    expect(b.runMeans[2]).toBeGreaterThan(0.1);
    expect(b.upper - b.lower).toBeGreaterThan(2 * (a.upper - a.lower));
    // Every run above zero by a margin: the pooled interval is above zero too.
    expect(a.lower).toBeGreaterThan(0);
    expect(b.lower).toBeLessThan(0);
  });

  it('refuses runs over different questions', () => {
    expect(() => seedBootstrap([[1, 2], [1]], { rng: createRng(1) })).toThrow(/same questions/);
    expect(() => seedBootstrap([], { rng: createRng(1) })).toThrow(/no runs/);
  });
});

const report = (rngSeed: number, code: Record<string, number>, config: Record<string, number> | undefined): CompareReport =>
  ({
    rngSeed,
    differences: [{ a: 'code', b: 'config', split: 'test', n: 0, mean: 0, lower: 0, upper: 0, level: 0.95, resamples: 500, pBetter: 0.5 }],
    ...(config ? { perQuestion: { code, config } } : {}),
  }) as unknown as CompareReport;

describe('poolCompareReports', () => {
  it("pools the questions every run scored, with each run's mean difference", () => {
    const pooled = poolCompareReports([
      report(1, { q1: 1, q2: 0.5, q3: 1 }, { q1: 0.5, q2: 0.5, q3: 0 }),
      report(2, { q1: 1, q2: 1 }, { q1: 1, q2: 0 }),
    ]);
    expect(pooled).toHaveLength(1);
    const d = pooled[0]!;
    expect([d.a, d.b, d.split, d.n, d.runs, d.resamples]).toEqual(['code', 'config', 'test', 2, 2, 500]);
    // q3 is missing from run 2: run 1 counts q1 and q2 only (0.5 and 0), run 2 gives 0 and 1.
    expect(d.runMeans).toEqual([0.25, 0.5]);
    expect(d.mean).toBeCloseTo(0.375, 12);
  });

  it('says which run kept no per-question scores', () => {
    expect(() => poolCompareReports([report(1, { q1: 1 }, { q1: 0 }), report(7, {}, undefined)])).toThrow(/RNG seed 7/);
  });
});
