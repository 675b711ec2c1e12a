import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed } from '../src/util/rng.ts';

describe('seeded rng', () => {
  it('repeats the same stream for the same seed and differs for another', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(createRng(43).next()).not.toBe(xs[0]);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });
  it('accepts string seeds and derives independent labelled streams', () => {
    expect(createRng('run-a').next()).toBe(createRng('run-a').next());
    expect(deriveSeed(7, 'select', 3)).toBe(deriveSeed(7, 'select', 3));
    expect(deriveSeed(7, 'select', 3)).not.toBe(deriveSeed(7, 'select', 4));
    const root = createRng(7);
    const f1 = root.fork('bootstrap').next();
    root.next();
    root.next();
    // Forks depend on the seed only, not on how many draws the parent made.
    expect(root.fork('bootstrap').next()).toBe(f1);
  });
  it('draws integers uniformly enough and shuffles without losing elements', () => {
    const rng = createRng(1);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) counts[rng.int(4)]!++;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
    const s = rng.shuffle([1, 2, 3, 4, 5, 6]);
    expect(s.slice().sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(() => rng.int(0)).toThrow(RangeError);
    expect(() => rng.pick([])).toThrow(RangeError);
  });
  it('samples proportionally to weights and never picks a zero weight', () => {
    const rng = createRng(9);
    const counts = [0, 0, 0];
    for (let i = 0; i < 9000; i++) counts[rng.weighted([1, 0, 2])]!++;
    expect(counts[1]).toBe(0);
    expect(Math.abs(counts[2]! / counts[0]! - 2)).toBeLessThan(0.2);
    expect(() => rng.weighted([0, 0])).toThrow(RangeError);
  });
});
