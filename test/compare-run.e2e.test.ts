/**
 * runCompare offline on the embedded default history: code search and config search from the same seed source,
 * supervision, RNG seed and budget; both trajectories, final scores and the paired bootstrap CI of the difference
 * on the official QA; compare.json written and valid. Also the best-so-far trajectory on its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompareReportSchema, DEFAULT_COMPARE_SEED, runCompare, trajectoryOf, type CompareReport } from '../src/optimize/compare.ts';
import type { OptimizeReport, SplitScores } from '../src/optimize/run-optimize.ts';
import { renderDifferences, renderTrajectories } from '../src/cli/commands/compare.ts';
import { prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

let run: DefaultRun;

beforeAll(async () => {
  run = await prepareDefaultRun('compare', 80);
}, 120_000);

describe('runCompare offline on the embedded default', () => {
  let report: CompareReport;
  const arms: string[] = [];

  beforeAll(async () => {
    report = await runCompare(
      {
        history: run.source,
        supervision: run.supervisionPath,
        out: join(run.dir, 'cmp'),
        iterations: 2,
        limit: 30,
        offline: true,
        testCategories: ['fact'],
        resamples: 500,
        // A rule other than the default, to see it reach both arms' searches (their manifests) and the report.
        accept: 'better:0.001',
      },
      { onArm: (arm, phase) => arms.push(`${arm}:${phase}`) },
    );
  }, 400_000);

  it('runs both arms from the same seed source into <out>/code and <out>/config', () => {
    expect(arms).toEqual(['code:start', 'code:done', 'config:start', 'config:done']);
    expect(report.seed).toBe(DEFAULT_COMPARE_SEED);
    expect(report.codeSeed).toBe(DEFAULT_COMPARE_SEED);
    const [code, config] = report.arms;
    expect(code!.arm).toBe('code');
    expect(config!.arm).toBe('config');
    expect(code!.dir).toBe(join(run.dir, 'cmp', 'code'));
    expect(config!.dir).toBe(join(run.dir, 'cmp', 'config'));
    // Same start: the same seed program and score.
    expect(code!.seed.id).toBe(config!.seed.id);
    expect(code!.seed.val.fitness).toBe(config!.seed.val.fitness);
    expect(code!.seed.test!.n).toBeGreaterThan(10);
    expect(report.accept).toBe('better:0.001');
    for (const a of report.arms) expect(JSON.parse(readFileSync(join(a.dir, 'manifest.json'), 'utf8')).config.accept).toBe('better:0.001');
  });

  it('reports both trajectories as best-so-far per iteration', () => {
    for (const a of report.arms) {
      expect(a.trajectory.map((p) => p.iteration)).toEqual([1, 2]);
      let best = a.seed.val.fitness;
      for (const p of a.trajectory) {
        expect(p.bestSoFar).toBeGreaterThanOrEqual(best);
        best = p.bestSoFar;
      }
      expect(best).toBeCloseTo(a.best.val.fitness, 10);
      expect(a.proposals).toBeGreaterThanOrEqual(2);
    }
    const table = renderTrajectories(report);
    expect(table).toMatch(/code best/);
    expect(table).toMatch(/config best/);
    expect(table.split('\n').filter((l) => /^│ [12] /.test(l))).toHaveLength(2);
  });

  it('gives the paired bootstrap CI of code − config on the official QA, and writes compare.json', () => {
    expect(report.differences).toHaveLength(1);
    const d = report.differences[0]!;
    expect(d).toMatchObject({ a: 'code', b: 'config', split: 'test', level: 0.95, resamples: 500 });
    expect(d.n).toBeGreaterThan(10);
    expect(d.n).toBeLessThanOrEqual(report.arms[0]!.best.test!.n);
    expect(d.lower).toBeLessThanOrEqual(d.mean);
    expect(d.mean).toBeLessThanOrEqual(d.upper);
    // The mean difference is the difference of the two bests' official fitness (same questions, same objective).
    expect(d.mean).toBeCloseTo(report.arms[0]!.best.test!.fitness - report.arms[1]!.best.test!.fitness, 10);
    expect(renderDifferences(report)).toMatch(
      /^code − config on official QA \(test\), \d+ questions, evidence fitness: mean [+-]\d+\.\d\d pts, 95% CI \[/,
    );
    const file = join(run.dir, 'cmp', 'compare.json');
    expect(existsSync(file)).toBe(true);
    expect(CompareReportSchema.parse(JSON.parse(readFileSync(file, 'utf8')))).toEqual(report);
  });
});

describe('trajectoryOf', () => {
  const s = (fitness: number) => ({ fitness }) as SplitScores;
  it('carries the best accepted score forward, and shows the last scored attempt of an iteration', () => {
    const t = (iteration: number, score: number | null, accepted: boolean) => ({
      iteration,
      program: `i${iteration}`,
      parent: 'i0',
      score,
      accepted,
      status: accepted ? 'accepted' : 'rejected',
      proposer: 'x',
      rationale: '',
    });
    const report = {
      seed: { id: 'i0', val: s(0.5), test: null },
      trajectory: [t(1, 0.6, true), t(2, null, false), t(2, 0.55, false), t(3, 0.7, true), t(5, 0.4, false)],
    } as unknown as Pick<OptimizeReport, 'trajectory' | 'seed'>;
    expect(trajectoryOf(report)).toEqual([
      { iteration: 1, candidate: 0.6, accepted: true, bestSoFar: 0.6 },
      { iteration: 2, candidate: 0.55, accepted: false, bestSoFar: 0.6 },
      { iteration: 3, candidate: 0.7, accepted: true, bestSoFar: 0.7 },
      { iteration: 4, candidate: null, accepted: false, bestSoFar: 0.7 },
      { iteration: 5, candidate: 0.4, accepted: false, bestSoFar: 0.7 },
    ]);
  });
});
