/**
 * `memsteer export` on a small hand-made run: the contract import rewrite, design.json (provenance, lineage,
 * scores, hashes) validated on disk, the README, the default program (the best) and the errors a user can hit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArchive, sha256, type Archive, type ProgramRecord, type Scores } from '../src/archive/index.ts';
import { main } from '../src/cli/main.ts';
import { captureIO } from '../src/cli/io.ts';
import { compileDesign } from '../src/design/compile.ts';
import { ExportManifestSchema } from '../src/export/design-manifest.ts';
import { exportDesign } from '../src/export/export-design.ts';
import { rewriteContractImports } from '../src/export/rewrite-contract-import.ts';
import { readTestScores, testScoresEvent } from '../src/export/test-scores.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';

describe('rewriteContractImports', () => {
  it('points relative contract imports and type re-exports at memsteer/contract, keeping quotes and everything else', () => {
    const src = [
      "import type { Tools } from '../sandbox/contract.ts';",
      'import { type Hit } from "../../../sandbox/contract";',
      "export type { Question } from '../sandbox/contract.js';",
      "// import type { X } from '../sandbox/contract.ts' stays a comment",
      "const s = '../sandbox/contract.ts';",
      'export default {};',
    ].join('\n');
    const r = rewriteContractImports(src);
    expect(r.rewritten).toBe(3);
    expect(r.source.split('\n')).toEqual([
      "import type { Tools } from 'memsteer/contract';",
      'import { type Hit } from "memsteer/contract";',
      "export type { Question } from 'memsteer/contract';",
      "// import type { X } from '../sandbox/contract.ts' stays a comment",
      "const s = '../sandbox/contract.ts';",
      'export default {};',
    ]);
    expect(rewriteContractImports(r.source)).toEqual({ source: r.source, rewritten: 0 });
  });

  it('leaves a design that compiles compiling', async () => {
    const out = rewriteContractImports(readFileSync(SEED_PATH, 'utf8')).source;
    expect(out).toContain("from 'memsteer/contract';");
    expect(out).not.toContain('sandbox/contract');
    expect((await compileDesign(out)).ok).toBe(true);
  });
});

describe('exportDesign', () => {
  let dir: string;
  let archive: Archive;
  let seed: ProgramRecord;
  let best: ProgramRecord;
  let rejected: ProgramRecord;
  const seedSource = readFileSync(SEED_PATH, 'utf8');
  const childSource = seedSource.replace('const TOP_K = 50;', 'const TOP_K = 40;');
  const worseSource = seedSource.replace('const TOP_K = 50;', 'const TOP_K = 5;');
  const scores = (value: number): Scores => ({
    objective: 'evidence',
    value,
    n: 30,
    perQuestion: {},
    metrics: { 'recall@10': value + 0.1, contextRecall: value, accuracy: 0.25, f1: 0.3 },
  });
  let tick = 0;
  const clock = () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memsteer-export-'));
    archive = createArchive(
      join(dir, 'run-a'),
      {
        config: {
          history: 'rhelm:data/default/rhelm#Elena_Morales',
          supervision: '/data/sup.jsonl',
          contextBudget: 800,
          objective: 'evidence',
          iterations: 2,
        },
        seeds: [{ path: SEED_PATH, sha256: sha256(seedSource) }],
        models: { proposer: 'offline-mutation', answerer: 'extractive-reader', judge: 'f1-threshold' },
        promptVersions: {},
        rngSeed: 1,
      },
      { now: clock },
    );
    seed = archive.addProgram({ iteration: 0, parent: null, source: seedSource, proposer: 'seed:seeds/base-bm25.ts' });
    archive.recordEvaluation(seed.id, { scores: scores(0.4) });
    archive.recordDecision(seed.id, { accepted: true, reason: 'seed baseline', against: null });
    best = archive.addProgram({
      iteration: 1,
      parent: seed.id,
      source: childSource,
      edits: [{ op: 'set-constant', name: 'TOP_K', value: 40 }],
      rationale: 'fewer, better hits',
      proposer: 'offline-mutation:top-k',
    });
    archive.recordEvaluation(best.id, { scores: scores(0.5) });
    best = archive.recordDecision(best.id, { accepted: true, reason: 'better', against: seed.id });
    rejected = archive.addProgram({
      iteration: 2,
      parent: best.id,
      source: worseSource,
      edits: [{ op: 'set-constant', name: 'TOP_K', value: 5 }],
      proposer: 'offline-mutation:top-k',
    });
    archive.recordEvaluation(rejected.id, { scores: scores(0.2) });
    rejected = archive.recordDecision(rejected.id, { accepted: false, reason: 'worse', against: best.id });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exports the best program by default: design.ts, design.json and README.md', async () => {
    const out = join(dir, 'export-best');
    const r = await exportDesign({ run: archive.dir, out, now: () => new Date(Date.UTC(2025, 5, 1)) });
    const design = readFileSync(join(out, 'design.ts'), 'utf8');
    expect(design).toBe(childSource.replace("'../sandbox/contract.ts'", "'memsteer/contract'"));
    const manifest = ExportManifestSchema.parse(JSON.parse(readFileSync(join(out, 'design.json'), 'utf8')));
    expect(manifest).toEqual(r.manifest);
    expect(manifest.program).toEqual({
      id: best.id,
      kind: 'proposal',
      iteration: 1,
      status: 'accepted',
      parent: seed.id,
      proposer: 'offline-mutation:top-k',
      rationale: 'fewer, better hits',
      best: true,
    });
    expect(manifest.lineage.map((p) => [p.id, p.kind, p.score])).toEqual([
      [seed.id, 'seed', 0.4],
      [best.id, 'proposal', 0.5],
    ]);
    expect(manifest.scores.val).toEqual({ value: 0.5, n: 30, metrics: { 'recall@10': 0.6, contextRecall: 0.5, accuracy: 0.25, f1: 0.3 } });
    expect(manifest.scores.test).toBeNull();
    expect(manifest.objective).toBe('evidence');
    expect(manifest.history).toEqual({ source: 'rhelm:data/default/rhelm#Elena_Morales', supervision: '/data/sup.jsonl' });
    expect(manifest.budget).toEqual({ tokens: 800 });
    expect(manifest.exportedAt).toBe('2025-06-01T00:00:00.000Z');
    expect(manifest.run).toMatchObject({ name: 'run-a', dir: archive.dir, models: { answerer: 'extractive-reader' } });
    expect(manifest.source.sha256).toBe(sha256(design));
    expect(manifest.source.archivedSha256).toBe(best.contentHash);
    expect(manifest.memsteer.exported).toBe('0.1.0');

    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain(`# Memory design ${best.id}`);
    expect(readme).toContain('run: **run-a**');
    expect(readme).toContain('history: `rhelm:data/default/rhelm#Elena_Morales`');
    expect(readme).toContain('| validation (generated supervision) | 30 | 50.0 | 60.0 | 50.0 | 25.0 | 30.0 |');
    expect(readme).toContain("import { createMemory } from 'memsteer';");
    expect(readme).toContain('fewer, better hits');
  });

  it('exports another program on request, with the official-test scores the run recorded for it', async () => {
    archive.appendEvent(testScoresEvent({ program: seed.id, value: 0.31, n: 18, metrics: { accuracy: 0.2, 'recall@10': 0.45 } }));
    archive.appendEvent(testScoresEvent({ program: best.id, value: 0.33, n: 18, metrics: {} }));
    expect(readTestScores(archive, rejected.id)).toBeNull();
    const r = await exportDesign({ run: archive.dir, program: seed.id, out: join(dir, 'export-seed') });
    expect(r.manifest.program).toMatchObject({ id: seed.id, kind: 'seed', parent: null, best: false });
    expect(r.manifest.lineage).toHaveLength(1);
    expect(r.manifest.scores.test).toEqual({ value: 0.31, n: 18, metrics: { accuracy: 0.2, 'recall@10': 0.45 } });
    const readme = readFileSync(join(dir, 'export-seed', 'README.md'), 'utf8');
    expect(readme).toContain('| official test QA | 18 | 31.0 | 45.0 | – | 20.0 | – |');
  });

  it('runs as `memsteer export` and says what it wrote', async () => {
    const io = captureIO();
    const out = join(dir, 'export-cli');
    const code = await main(['node', 'memsteer', 'export', archive.dir, '--program', rejected.id, '--out', out], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    expect(io.stdout).toContain(`exported ${rejected.id} of run run-a: val evidence 20.0, budget 800 tokens`);
    expect(io.stdout).toContain(join(out, 'design.json'));
    const manifest = ExportManifestSchema.parse(JSON.parse(readFileSync(join(out, 'design.json'), 'utf8')));
    expect(manifest.lineage.map((p) => p.id)).toEqual([seed.id, best.id, rejected.id]);
  });

  it('refuses unknown programs, runs without an accepted program, and non-runs, with codes', async () => {
    const io = captureIO();
    expect(await main(['node', 'memsteer', 'export', archive.dir, '--program', 'i009-000000000000', '--out', join(dir, 'x')], io)).toBe(1);
    expect(io.stderr).toMatch(/^memsteer: E_ARCHIVE_UNKNOWN_PROGRAM: no program i009-000000000000/);
    const empty = createArchive(join(dir, 'run-empty'), {
      config: { history: 'jsonl:x.jsonl' },
      seeds: [],
      models: {},
      promptVersions: {},
      rngSeed: 1,
    });
    const s = empty.addProgram({ iteration: 0, parent: null, source: seedSource });
    await expect(exportDesign({ run: empty.dir, out: join(dir, 'y') })).rejects.toMatchObject({ code: 'E_EXPORT_NO_PROGRAM' });
    // Asked for explicitly, an unevaluated program still exports (its scores are null).
    const r = await exportDesign({ run: empty.dir, program: s.id, out: join(dir, 'y') });
    expect(r.manifest.scores).toEqual({ val: null, test: null });
    expect(r.manifest.budget.tokens).toBe(1000);
    await expect(exportDesign({ run: join(dir, 'nothing-here'), out: join(dir, 'z') })).rejects.toMatchObject({
      code: 'E_ARCHIVE_MISSING',
    });
  });
});
