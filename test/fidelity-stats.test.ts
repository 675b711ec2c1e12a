/**
 * Fidelity statistics on hand-computed cases: Kendall τ-b and Spearman ρ with and without ties (values checked
 * against scipy.stats.kendalltau / spearmanr by hand), and the official regret of picking by validation.
 */
import { describe, expect, it } from 'vitest';
import {
  agreementOf,
  averageRanks,
  groupAgreement,
  kendallTauB,
  officialCeiling,
  pairCounts,
  regretOf,
  spearman,
  splitHalfReliability,
  tauInterval,
} from '../src/experiments/fidelity-stats.ts';

describe('averageRanks', () => {
  it('gives tied values the mean of the ranks they span', () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([0.5, 0.1, 0.5, 0.5])).toEqual([3, 1, 3, 3]);
    expect(averageRanks([])).toEqual([]);
  });
});

describe('Kendall τ-b', () => {
  it('is 1 for the same order and −1 for the reverse', () => {
    expect(kendallTauB([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
  });

  it('counts one discordant pair of four items as (5 − 1) / 6', () => {
    // pairs: (1,2) discordant, the other five concordant
    expect(kendallTauB([1, 2, 3, 4], [2, 1, 3, 4])).toBeCloseTo(4 / 6, 12);
  });

  it('handles ties in x: P=5, Q=0, Tx=1 → 5/√30', () => {
    const x = [1, 2, 2, 3];
    const y = [1, 3, 2, 4];
    expect(pairCounts(x, y)).toEqual({ concordant: 5, discordant: 0, tiedX: 1, tiedY: 0, tiedBoth: 0 });
    expect(kendallTauB(x, y)).toBeCloseTo(5 / Math.sqrt(30), 12); // scipy: 0.9128709291752769
  });

  it('handles ties on both sides, and pairs tied in both count nowhere', () => {
    const x = [1, 1, 2, 3, 3];
    const y = [1, 1, 3, 2, 2];
    // (0,1) tied both; (0,2),(1,2) C; (0,3),(0,4),(1,3),(1,4) C; (2,3),(2,4) D; (3,4) tied both
    expect(pairCounts(x, y)).toEqual({ concordant: 6, discordant: 2, tiedX: 0, tiedY: 0, tiedBoth: 2 });
    expect(kendallTauB(x, y)).toBeCloseTo(4 / 8, 12);
    // x ties only in (0,1); y ties only in (3,4)
    const c = pairCounts([1, 1, 2, 3], [1, 2, 3, 3]);
    expect(c).toEqual({ concordant: 4, discordant: 0, tiedX: 1, tiedY: 1, tiedBoth: 0 });
    expect(kendallTauB([1, 1, 2, 3], [1, 2, 3, 3])).toBeCloseTo(4 / 5, 12); // scipy: 0.8
  });

  it('is undefined (null) for fewer than two values or a constant side', () => {
    expect(kendallTauB([], [])).toBeNull();
    expect(kendallTauB([1], [2])).toBeNull();
    expect(kendallTauB([5, 5, 5], [1, 2, 3])).toBeNull();
  });

  it('refuses unpaired or non-finite samples', () => {
    expect(() => kendallTauB([1, 2], [1])).toThrow(RangeError);
    expect(() => kendallTauB([1, Number.NaN], [1, 2])).toThrow(RangeError);
  });
});

describe('Spearman ρ', () => {
  it('is ±1 for monotone relations, not only linear ones', () => {
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 16])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [0.9, 0.5, 0.2, 0.1])).toBeCloseTo(-1, 12);
  });

  it('uses average ranks for ties: 4.5 / √22.5', () => {
    // ranks x [1, 2.5, 2.5, 4], y [1, 3, 2, 4]; cov 4.5, var 4.5 and 5
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(4.5 / Math.sqrt(22.5), 12); // scipy: 0.9486832980505138
  });

  it('is 1 − 6Σd²/(n(n²−1)) without ties', () => {
    // ranks y [2, 1, 4, 3, 5]: Σd² = 4 → 1 − 24/120 = 0.8
    expect(spearman([1, 2, 3, 4, 5], [20, 10, 40, 30, 50])).toBeCloseTo(0.8, 12);
  });

  it('stays within [−1, 1] where floating point would round past it', () => {
    // Pearson of the tied ranks [2.5, 1, 2.5] with themselves computes as 1.0000000000000002.
    expect(spearman([3, 1, 3], [3, 1, 3])).toBe(1);
    expect(spearman([3, 1, 3], [-3, -1, -3])).toBe(-1);
  });

  it('is undefined (null) for a constant side', () => {
    expect(spearman([1, 2, 3], [7, 7, 7])).toBeNull();
    expect(spearman([1], [1])).toBeNull();
  });
});

describe('regret of picking by validation', () => {
  it('is the best official score minus the validation-chosen one', () => {
    const r = regretOf([
      { id: 'seed', val: 0.5, official: 0.6 },
      { id: 'a', val: 0.7, official: 0.65 },
      { id: 'b', val: 0.6, official: 0.8 },
    ]);
    expect(r).toMatchObject({ chosen: 'a', chosenOfficial: 0.65, bestOfficial: 'b', bestOfficialScore: 0.8, tiedAtTop: 1 });
    expect(r!.regret).toBeCloseTo(0.15, 12);
    expect(r!.meanRegretOverTies).toBeCloseTo(0.15, 12);
  });

  it('breaks a validation tie toward the earliest candidate and reports the mean over the tie', () => {
    const r = regretOf([
      { id: 'seed', val: 0.5, official: 0.5 },
      { id: 'a', val: 0.7, official: 0.6 },
      { id: 'b', val: 0.7, official: 0.9 },
    ]);
    expect(r!.chosen).toBe('a');
    expect(r!.tiedAtTop).toBe(2);
    expect(r!.regret).toBeCloseTo(0.3, 12);
    expect(r!.meanRegretOverTies).toBeCloseTo(0.15, 12);
  });

  it('is 0 when validation picks the official best, and null with no candidate', () => {
    expect(regretOf([{ id: 'x', val: 1, official: 0.4 }])!.regret).toBe(0);
    expect(regretOf([])).toBeNull();
  });

  it('agreementOf combines the three over the same candidates', () => {
    const a = agreementOf([
      { id: 's', val: 0.1, official: 0.2 },
      { id: 'a', val: 0.2, official: 0.1 },
      { id: 'b', val: 0.3, official: 0.3 },
    ]);
    expect(a.n).toBe(3);
    expect(a.kendallTauB).toBeCloseTo(1 / 3, 12);
    expect(a.spearman).toBeCloseTo(0.5, 12);
    expect(a.regret!.regret).toBe(0);
  });
});

describe('splitHalfReliability', () => {
  it('is 1 when every question ranks the candidates alike', () => {
    const scores = [0, 0.25, 0.5, 1].map((v) => Array.from({ length: 20 }, () => v));
    const h = splitHalfReliability(scores, 50);
    expect(h).toMatchObject({ meanTauB: 1, p10: 1, p90: 1, splits: 50, questions: 20, candidates: 4 });
  });

  it('is near 0 when the candidates differ only by per-question noise', () => {
    // 8 candidates, 80 questions, each score a coin flip of the same rate (a fixed hash, so the test is exact)
    const flip = (c: number, q: number) => {
      // an integer hash (lowbias32): flips independent across candidates and questions
      let x = c * 1000 + q + 1;
      x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
      x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
      return ((x ^ (x >>> 16)) >>> 0) % 2;
    };
    const scores = Array.from({ length: 8 }, (_, c) => Array.from({ length: 80 }, (_, q) => flip(c, q)));
    const h = splitHalfReliability(scores, 300)!;
    expect(Math.abs(h.meanTauB)).toBeLessThan(0.3);
    expect(h.p10).toBeLessThan(0);
    expect(h.p90).toBeGreaterThan(0);
  });

  it('is the same on every call (seeded) and undefined without enough candidates or questions', () => {
    const scores = [
      [1, 0, 1, 0, 1, 1],
      [0, 0, 1, 1, 0, 1],
      [1, 1, 0, 0, 0, 0],
    ];
    expect(splitHalfReliability(scores)).toEqual(splitHalfReliability(scores));
    expect(splitHalfReliability(scores.slice(0, 2))).toBeNull();
    expect(splitHalfReliability([[1], [0], [0.5]])).toBeNull();
    expect(() => splitHalfReliability([[1, 0], [0], [1, 1]])).toThrow(RangeError);
  });
});

describe('officialCeiling', () => {
  // an integer hash (lowbias32): per-question coin flips independent across candidates and questions, exact in tests
  const flip = (c: number, q: number) => {
    let x = c * 1000 + q + 1;
    x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
    x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
    return ((x ^ (x >>> 16)) >>> 0) % 2;
  };

  it('is 1 when every question ranks the candidates alike', () => {
    const scores = [0, 0.25, 0.5, 1].map((v) => Array.from({ length: 20 }, () => v));
    expect(officialCeiling(scores, 100)).toMatchObject({ meanTauB: 1, p10: 1, p90: 1, resamples: 100, questions: 20, candidates: 4 });
  });

  it('falls as the questions get noisier than the differences between candidates', () => {
    // 8 candidates: candidate c answers question q right when its skill clears the question's difficulty, or on a coin
    // flip in a share of the questions; more flips, less of the ranking the questions can confirm.
    const scores = (noisy: number) =>
      Array.from({ length: 8 }, (_, c) =>
        Array.from({ length: 80 }, (_, q) => (q % 10 < noisy ? flip(c, q) : Number(c + 1 > (q * 7) % 9))),
      );
    const clean = officialCeiling(scores(0), 300)!;
    const half = officialCeiling(scores(5), 300)!;
    const noise = officialCeiling(scores(10), 300)!;
    expect(clean.meanTauB).toBeGreaterThan(half.meanTauB);
    expect(half.meanTauB).toBeGreaterThan(noise.meanTauB);
    // Pure noise still agrees with its own resamples (they share its questions), at about 0.4: the ceiling errs high.
    expect(noise.meanTauB).toBeGreaterThan(0.3);
    expect(noise.meanTauB).toBeLessThan(0.6);
    expect(noise.p10).toBeLessThanOrEqual(noise.p90);
  });

  it('is the same on every call (seeded) and undefined without enough candidates or questions', () => {
    const scores = [
      [1, 0, 1, 0, 1, 1],
      [0, 0, 1, 1, 0, 1],
      [1, 1, 0, 0, 0, 0],
    ];
    expect(officialCeiling(scores)).toEqual(officialCeiling(scores));
    expect(officialCeiling(scores.slice(0, 2))).toBeNull();
    expect(officialCeiling([[1], [0], [0.5]])).toBeNull();
    expect(() => officialCeiling([[1, 0], [0], [1, 1]])).toThrow(RangeError);
  });
});

describe('tauInterval', () => {
  // 5 candidates, validation and official both ranking them by quality q, with per-question noise around it.
  const noisy = (q: number, n: number, spread: number, salt: number) =>
    Array.from({ length: n }, (_, i) => {
      let x = Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt + 7, 0x85ebca6b);
      x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
      return q + spread * ((((x ^ (x >>> 16)) >>> 0) % 1000) / 1000 - 0.5);
    });
  const quality = [0.2, 0.3, 0.4, 0.5, 0.6];

  it('is a point interval at 1 when every question ranks the candidates alike, and seeded', () => {
    const v = quality.map((q) => Array.from({ length: 30 }, () => q));
    const o = quality.map((q) => Array.from({ length: 40 }, () => q));
    expect(tauInterval(v, o)).toMatchObject({ kendallTauB: 1, lower: 1, upper: 1, items: 30, questions: 40, level: 0.95 });
    expect(tauInterval(v, o)).toEqual(tauInterval(v, o));
  });

  it('widens with per-question noise and narrows with more questions', () => {
    const wide = (n: number) => {
      const v = quality.map((q, c) => noisy(q, n, 2, c));
      const o = quality.map((q, c) => noisy(q, n, 2, 100 + c));
      const t = tauInterval(v, o, { resamples: 400 })!;
      expect(t.lower).toBeLessThanOrEqual(t.kendallTauB);
      expect(t.upper).toBeGreaterThanOrEqual(t.kendallTauB);
      return t.upper - t.lower;
    };
    const few = wide(40);
    const many = wide(4000);
    expect(few).toBeGreaterThan(0.5);
    expect(many).toBeLessThan(few / 2);
  });

  it('is undefined without three candidates or two questions a side, and checks its shapes', () => {
    expect(
      tauInterval(
        [
          [1, 0],
          [0, 1],
        ],
        [
          [1, 0],
          [0, 1],
        ],
      ),
    ).toBeNull();
    expect(
      tauInterval(
        [[1], [0], [0.5]],
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
      ),
    ).toBeNull();
    expect(() =>
      tauInterval(
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
        [
          [1, 0],
          [0, 1],
        ],
      ),
    ).toThrow(RangeError);
    expect(() =>
      tauInterval(
        [[1, 0], [0], [1, 1]],
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
      ),
    ).toThrow(RangeError);
  });
});

describe('groupAgreement', () => {
  // Three candidates, official scores rising; items a1–a5 of template A rank them the same way, b1–b5 of B reversed,
  // c1–c2 of C too few to count, and x1 was not scored for every candidate (left out).
  const item = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  const scores = (a: number, b: number, c: number, withX: boolean) =>
    new Map<string, number>([
      ...item('a', 5).map((k) => [k, a] as [string, number]),
      ...item('b', 5).map((k) => [k, b] as [string, number]),
      ...item('c', 2).map((k) => [k, c] as [string, number]),
      ...(withX ? [['x1', 1] as [string, number]] : []),
    ]);
  const candidates = [
    { official: 0.2, perItem: scores(0.1, 0.9, 0.5, true) },
    { official: 0.5, perItem: scores(0.5, 0.5, 0.5, false) },
    { official: 0.8, perItem: scores(0.9, 0.1, 0.5, true) },
  ];
  const groupOf = (k: string) => ({ a: 'A', b: 'B', c: 'C', x: 'A' })[k[0] as 'a' | 'b' | 'c' | 'x'];

  it('ranks the candidates by each group’s mean and compares with the official order; small groups are left out', () => {
    const out = groupAgreement(candidates, groupOf);
    expect(out.map((g) => [g.group, g.items, g.kendallTauB, g.spearman])).toEqual([
      ['A', 5, 1, 1],
      ['B', 5, -1, -1],
    ]);
    expect(groupAgreement(candidates, groupOf, 2).find((g) => g.group === 'C')).toEqual({
      group: 'C',
      items: 2,
      kendallTauB: null,
      spearman: null,
    });
  });

  it('skips items of no group, and gives nothing without candidates', () => {
    expect(groupAgreement(candidates, (k) => (k.startsWith('a') ? 'A' : undefined)).map((g) => g.group)).toEqual(['A']);
    expect(groupAgreement([], groupOf)).toEqual([]);
  });
});
