import { describe, expect, it } from 'vitest';
import { createRng } from '../src/util/rng.ts';
import {
  acceptanceFromSpec,
  bootstrapAcceptance,
  pairedBootstrap,
  strictlyBetter,
  type ScoredProgram,
} from '../src/optimize/strategies/index.ts';

function program(id: string, per: number[]): ScoredProgram {
  const perQuestion: Record<string, number> = {};
  per.forEach((v, i) => (perQuestion[`q${i}`] = v));
  return { id, score: per.reduce((a, b) => a + b, 0) / per.length, perQuestion };
}

describe('acceptance', () => {
  it('strictly better accepts only a higher score', () => {
    const rule = strictlyBetter();
    expect(rule.decide({ id: 'c', score: 0.51 }, { id: 'i', score: 0.5 }, createRng(1)).accept).toBe(true);
    expect(rule.decide({ id: 'c', score: 0.5 }, { id: 'i', score: 0.5 }, createRng(1)).accept).toBe(false);
    const eps = strictlyBetter({ epsilon: 0.02 }).decide({ id: 'c', score: 0.51 }, { id: 'i', score: 0.5 }, createRng(1));
    expect(eps.accept).toBe(false);
    expect(eps.delta).toBeCloseTo(0.01, 10);
  });

  it('paired bootstrap brackets the mean difference and is reproducible', () => {
    const a = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1];
    const b = [0, 1, 0, 0, 1, 0, 0, 1, 0, 1];
    const r1 = pairedBootstrap(a, b, { rng: createRng(3) });
    const r2 = pairedBootstrap(a, b, { rng: createRng(3) });
    expect(r1).toEqual(r2);
    expect(r1.mean).toBeCloseTo(0.4, 10);
    expect(r1.lower).toBeLessThanOrEqual(0.4);
    expect(r1.upper).toBeGreaterThanOrEqual(0.4);
    expect(r1.lower).toBeGreaterThan(0);
    expect(r1.upper).toBeLessThanOrEqual(1);
    // Identical vectors give a degenerate interval at 0.
    expect(pairedBootstrap(a, a, { rng: createRng(3) })).toMatchObject({ mean: 0, lower: 0, upper: 0 });
    expect(() => pairedBootstrap([1], [1, 2], { rng: createRng(3) })).toThrow(RangeError);
  });

  it('bootstrap acceptance rejects a small noisy gain that strictly-better accepts', () => {
    // One more question right, one other wrong, one more right: +1 over 40 questions.
    const base = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const cand = base.slice();
    cand[1] = 1;
    cand[3] = 1;
    cand[0] = 0;
    const c = program('c', cand);
    const inc = program('i', base);
    expect(strictlyBetter().decide(c, inc, createRng(1)).accept).toBe(true);
    const d = bootstrapAcceptance().decide(c, inc, createRng(1));
    expect(d.accept).toBe(false);
    expect(d.ci!.lower).toBeLessThanOrEqual(0);
    expect(d.reason).toMatch(/includes 0/);
  });

  it('bootstrap acceptance accepts a consistent gain', () => {
    const base = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? 1 : 0));
    const cand = base.map((v, i) => (i % 4 === 1 ? 1 : v));
    const d = bootstrapAcceptance().decide(program('c', cand), program('i', base), createRng(2));
    expect(d.accept).toBe(true);
    expect(d.ci!.lower).toBeGreaterThan(0);
    expect(d.delta).toBeCloseTo(0.25, 10);
  });

  it('bootstrap acceptance without shared per-question scores rejects with a reason', () => {
    const d = bootstrapAcceptance().decide({ id: 'c', score: 0.9 }, { id: 'i', score: 0.1 }, createRng(1));
    expect(d.accept).toBe(false);
    expect(d.reason).toMatch(/per-question/);
  });

  it('parses CLI specs', () => {
    expect(acceptanceFromSpec('better').name).toBe('better');
    expect(acceptanceFromSpec('better:0.01').name).toBe('better:0.01');
    expect(acceptanceFromSpec('bootstrap').name).toBe('bootstrap:0.95');
    expect(acceptanceFromSpec('bootstrap:0.9').name).toBe('bootstrap:0.9');
    expect(() => acceptanceFromSpec('bootstrap:2')).toThrow(/--accept/);
    expect(() => acceptanceFromSpec('always')).toThrow(/--accept/);
  });
});
