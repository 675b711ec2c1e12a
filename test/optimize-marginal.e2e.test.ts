/**
 * `--objective marginal` end to end, offline: the host scores MemSifter's marginal utility of what each candidate
 * delivered (extractive reader), the search climbs it and accepts a better design, and the archive's fitness is the
 * mean of the traces' marginal utility.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { LIMIT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

let run: DefaultRun;
let report: OptimizeReport;

beforeAll(async () => {
  run = await prepareDefaultRun('optimize-marginal');
  report = await runOptimize({
    out: join(run.dir, 'run'),
    config: {
      history: run.source,
      supervision: run.supervisionPath,
      seed: SEED_PATH,
      // The case-driven proposer's first moves on this history raise recall but not marginal utility; its fifth does.
      iterations: 6,
      offline: true,
      limit: LIMIT,
      objective: 'marginal',
      // No official category is named so: the test split stays empty and the run stays short.
      testCategories: ['no-such-category'],
    },
  });
}, 240_000);

describe('optimize --objective marginal (offline)', () => {
  it('scores the seed above zero and accepts a design with higher marginal utility', () => {
    expect(report.objective).toBe('marginal');
    expect(report.seed.val.fitness).toBeGreaterThan(0);
    expect(report.accepted).toBeGreaterThanOrEqual(1);
    expect(report.best.id).not.toBe(report.seed.id);
    expect(report.best.val.fitness).toBeGreaterThan(report.seed.val.fitness);
    expect(report.best.val.summary.marginalUtility).toBeCloseTo(report.best.val.fitness, 10);
  });

  it('records a marginal utility in [−1, 1] on every validation trace, and fitness is their mean', () => {
    const archive = openArchive(report.dir);
    const best = archive.get(report.best.id)!;
    const traces = archive.traces(best.id)!;
    expect(traces).toHaveLength(run.splits.val.length);
    const mu = traces.map((t) => t.scores?.marginalUtility);
    for (const u of mu) {
      expect(u).toBeTypeOf('number');
      expect(u!).toBeGreaterThanOrEqual(-1);
      expect(u!).toBeLessThanOrEqual(1);
    }
    const mean = mu.reduce((a: number, b) => a + b!, 0) / mu.length;
    expect(best.scores?.value).toBeCloseTo(mean, 10);
    // Not a constant: some questions gain from memory, some do not.
    expect(new Set(mu.map((u) => u!.toFixed(3))).size).toBeGreaterThan(2);
  });
});
