/**
 * `--space config` end to end on the embedded default history, offline: the same search loop and archive as code
 * search, but every proposal is a set-constant edit of a config knob and every archived program is the seed with
 * another config.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { CONFIG_NAMES, configSpaceProblems, readConfig } from '../src/optimize/config-space.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { REPO_ROOT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const CONFIG_SEED = join(REPO_ROOT, 'seeds', 'configurable.ts');
const LIMIT = 30;

let run: DefaultRun;

beforeAll(async () => {
  run = await prepareDefaultRun('config-search', 80);
}, 120_000);

describe('runOptimize with space: config', () => {
  let report: OptimizeReport;

  beforeAll(async () => {
    report = await runOptimize({
      out: join(run.dir, 'config'),
      config: {
        history: run.source,
        supervision: run.supervisionPath,
        seed: CONFIG_SEED,
        space: 'config',
        iterations: 3,
        offline: true,
        limit: LIMIT,
        testCategories: ['fact'],
      },
    });
  }, 240_000);

  it('records only set-constant edits of config knobs, by the offline config proposer', () => {
    const archive = openArchive(report.dir);
    expect(archive.manifest.config).toMatchObject({ space: 'config' });
    expect(archive.manifest.models).toMatchObject({ proposer: 'offline-config-mutation' });
    const state = archive.loadState();
    const proposals = state.programs.filter((p) => p.kind !== 'seed');
    expect(proposals.length).toBe(3);
    const seedSource = readFileSync(CONFIG_SEED, 'utf8');
    for (const p of proposals) {
      expect(p.proposer).toMatch(/^offline-config-mutation:set:[A-Z_0-9]+=/);
      const edits = p.edits as Array<{ op: string; name: string }>;
      expect(edits.length).toBeGreaterThan(0);
      for (const e of edits) {
        expect(e.op).toBe('set-constant');
        expect(CONFIG_NAMES).toContain(e.name);
      }
      // The archived program is the seed with another config.
      const source = archive.source(p.id);
      expect(configSpaceProblems(source, seedSource)).toEqual([]);
      expect(readConfig(source)).not.toEqual(readConfig(seedSource));
    }
    // No config is tried twice.
    expect(new Set(proposals.map((p) => p.contentHash)).size).toBe(proposals.length);
    expect(report.trajectory).toHaveLength(3);
    expect(report.best.val.fitness).toBeGreaterThanOrEqual(report.seed.val.fitness);
    expect(report.seed.val.n).toBe(LIMIT);
  });

  it('refuses a code-search seed before writing anything', async () => {
    const out = join(run.dir, 'wrong-seed');
    await expect(
      runOptimize({
        out,
        config: {
          history: run.source,
          supervision: run.supervisionPath,
          seed: SEED_PATH,
          space: 'config',
          iterations: 1,
          offline: true,
          limit: LIMIT,
        },
      }),
    ).rejects.toMatchObject({ code: 'E_CONFIG_SEED' });
    expect(() => openArchive(out)).toThrow();
  });
});
