import { describe, expect, it } from 'vitest';
import {
  allOf,
  anyOf,
  dollarBudget,
  maxIterations,
  maxProposals,
  noImprovement,
  tokenBudget,
  wallTime,
  type SearchProgress,
} from '../src/optimize/strategies/index.ts';

const start: SearchProgress = { iterations: 0, proposals: 0, tokens: 0, dollars: 0, elapsedMs: 0, iterationsSinceImprovement: 0 };
const at = (p: Partial<SearchProgress>): SearchProgress => ({ ...start, ...p });

describe('stopping', () => {
  it('each condition fires at its threshold and not before', () => {
    expect(maxIterations(20).check(at({ iterations: 19 }))).toBeNull();
    expect(maxIterations(20).check(at({ iterations: 20 }))).toBe('reached 20 iterations');
    expect(maxProposals(5).check(at({ proposals: 5 }))).toBe('reached 5 proposals');
    expect(tokenBudget(1000).check(at({ tokens: 999 }))).toBeNull();
    expect(tokenBudget(1000).check(at({ tokens: 1200 }))).toBe('spent 1200 of 1000 tokens');
    expect(dollarBudget(2).check(at({ dollars: 2.5 }))).toBe('spent $2.5000 of $2');
    expect(wallTime(60_000).check(at({ elapsedMs: 61_000 }))).toBe('ran 61 s of 60 s');
    expect(noImprovement(3).check(at({ iterationsSinceImprovement: 2 }))).toBeNull();
    expect(noImprovement(3).check(at({ iterationsSinceImprovement: 3 }))).toBe('no improvement in 3 iterations');
    expect(() => maxIterations(0)).toThrow(RangeError);
  });

  it('anyOf reports the first condition that fires; allOf needs all', () => {
    const any = anyOf(maxIterations(10), noImprovement(3), tokenBudget(100));
    expect(any.check(at({ iterations: 4, iterationsSinceImprovement: 1 }))).toBeNull();
    expect(any.check(at({ iterations: 4, iterationsSinceImprovement: 3, tokens: 500 }))).toBe('no improvement in 3 iterations');
    expect(any.name).toBe('iterations:10 | patience:3 | tokens:100');
    const all = allOf(maxIterations(5), noImprovement(2));
    expect(all.check(at({ iterations: 3, iterationsSinceImprovement: 3 }))).toBeNull();
    expect(all.check(at({ iterations: 5, iterationsSinceImprovement: 2 }))).toBe('reached 5 iterations and no improvement in 2 iterations');
  });
});
