import { describe, expect, it } from 'vitest';
import { createRng } from '../src/util/rng.ts';
import {
  greedySelector,
  paretoFront,
  paretoSelector,
  parentSelectorFromSpec,
  softmaxSelector,
  type ScoredProgram,
} from '../src/optimize/strategies/index.ts';

const pool: ScoredProgram[] = [
  { id: 'seed', score: 0.5, iteration: 0, perQuestion: { q1: 1, q2: 0, q3: 0, q4: 1 } },
  { id: 'a', score: 0.75, iteration: 1, perQuestion: { q1: 1, q2: 1, q3: 0, q4: 1 } },
  { id: 'b', score: 0.5, iteration: 2, perQuestion: { q1: 0, q2: 0, q3: 1, q4: 1 } },
  { id: 'c', score: 0.25, iteration: 3, perQuestion: { q1: 0, q2: 0, q3: 0, q4: 1 } },
];

function counts(select: (rng: ReturnType<typeof createRng>) => string, n = 4000): Record<string, number> {
  const rng = createRng(5);
  const out: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const id = select(rng);
    out[id] = (out[id] ?? 0) + 1;
  }
  return out;
}

describe('parent selection', () => {
  it('greedy picks the best score, most recent among ties', () => {
    expect(greedySelector().select(pool, createRng(1))).toBe('a');
    const tied = [...pool, { id: 'd', score: 0.75, iteration: 4 }];
    expect(greedySelector().select(tied, createRng(1))).toBe('d');
    expect(() => greedySelector().select([], createRng(1))).toThrow(/empty/);
  });

  it('softmax follows exp(score/T): low temperature is near greedy, high is near uniform', () => {
    const cold = counts((rng) => softmaxSelector(0.01).select(pool, rng));
    expect(cold.a).toBeGreaterThan(3990);
    const warm = counts((rng) => softmaxSelector(0.25).select(pool, rng));
    // p(a)/p(seed) = exp(0.25/0.25) = e.
    expect(warm.a! / warm.seed!).toBeGreaterThan(2.4);
    expect(warm.a! / warm.seed!).toBeLessThan(3.1);
    expect(warm.c).toBeGreaterThan(0);
    expect(softmaxSelector(0).select(pool, createRng(1))).toBe('a');
  });

  it('the Pareto front keeps programs best on some question and drops dominated ones', () => {
    // seed is dominated by a; c is dominated by b; a is best on q1,q2,q4; b on q3,q4.
    expect(paretoFront(pool)).toEqual([
      { id: 'a', wins: 3 },
      { id: 'b', wins: 2 },
    ]);
    const seen = counts((rng) => paretoSelector().select(pool, rng), 5000);
    expect(Object.keys(seen).sort()).toEqual(['a', 'b']);
    expect(seen.a! / seen.b!).toBeGreaterThan(1.3);
    expect(seen.a! / seen.b!).toBeLessThan(1.7);
    const uniform = counts((rng) => paretoSelector({ weighting: 'uniform' }).select(pool, rng), 5000);
    expect(Math.abs(uniform.a! - uniform.b!)).toBeLessThan(300);
  });

  it('Pareto falls back to greedy without per-question scores', () => {
    expect(
      paretoSelector().select(
        pool.map(({ id, score }) => ({ id, score })),
        createRng(3),
      ),
    ).toBe('a');
  });

  it('is reproducible with the same seed', () => {
    const s = softmaxSelector(0.3);
    const run = () => {
      const rng = createRng(11);
      return Array.from({ length: 20 }, () => s.select(pool, rng));
    };
    expect(run()).toEqual(run());
  });

  it('parses CLI specs and rejects bad ones', () => {
    expect(parentSelectorFromSpec('greedy').name).toBe('greedy');
    expect(parentSelectorFromSpec('softmax').name).toBe('softmax:0.05');
    expect(parentSelectorFromSpec('softmax:0.2').name).toBe('softmax:0.2');
    expect(parentSelectorFromSpec('pareto:uniform').name).toBe('pareto:uniform');
    expect(() => parentSelectorFromSpec('softmax:hot')).toThrow(/--select/);
    expect(() => parentSelectorFromSpec('best')).toThrow(/--select/);
  });
});
