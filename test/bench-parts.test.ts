import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createArchive, type ManifestInput } from '../src/archive/index.ts';
import { ArtefactIndexSchema, RunArtefactSchema, writeArtefacts } from '../src/experiments/artefacts.ts';
import type { CellResult } from '../src/experiments/cells.ts';
import { openWorkspace, type Workspace } from '../src/experiments/workspace.ts';
import type { History, QAItem } from '../src/history/record.ts';
import { budgetSubset, hashSplit, officialSupervision } from '../src/experiments/supervision-sets.ts';
import { officialQuestions } from '../src/experiments/official-eval.ts';
import { bySplit, delta, markdownTable, pct, sameDesignNote } from '../src/experiments/markdown.ts';
import { DEV_SUBSETS, devOnly, historySplit } from '../src/experiments/dev-subsets.ts';
import { scoresFromTraces } from '../src/experiments/scores.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { benchConfigFromFlags } from '../src/cli/commands/bench.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { loadHistories } from '../src/history/load.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';

function item(id: string, history: string, extra: Partial<QAItem> = {}): QAItem {
  return { id, history, question: `q ${id}?`, answer: 'a', answerType: 'text', evidence: [{ record: 'r1' }], ...extra };
}

function history(id: string, qa: QAItem[]): History {
  return { id, source: `test:${id}`, format: 'jsonl', records: [], qa, unresolvedEvidence: [] };
}

describe('bench supervision sets', () => {
  it('hashSplit is a pure function of the id and follows the share', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `h/${i}`);
    const val = ids.filter((id) => hashSplit(id, 0.4) === 'val').length;
    expect(val / ids.length).toBeGreaterThan(0.36);
    expect(val / ids.length).toBeLessThan(0.44);
    expect(ids.map((id) => hashSplit(id, 0.4))).toEqual(ids.map((id) => hashSplit(id, 0.4)));
    // A smaller share only moves items from val to train (same hash threshold logic).
    for (const id of ids) if (hashSplit(id, 0.2) === 'val') expect(hashSplit(id, 0.4)).toBe('val');
  });

  it('officialSupervision keeps the test categories, splits every item, and drops dates only when asked', () => {
    const h = history('p', [
      item('a', 'p', { category: '1', date: '2024-01-01' }),
      item('b', 'p', { category: '5' }),
      item('c', 'p', { category: '2', date: '2024-02-01' }),
    ]);
    const kept = officialSupervision([h], { categories: ['1', '2'], valShare: 0.5, dropDates: false });
    expect(kept.map((q) => q.id)).toEqual(['a', 'c']);
    expect(kept.map((q) => q.date)).toEqual(['2024-01-01', '2024-02-01']);
    expect(kept.every((q) => q.split === hashSplit(`p/${q.id}`, 0.5))).toBe(true);
    const undated = officialSupervision([h], { categories: [], valShare: 0.5, dropDates: true });
    expect(undated).toHaveLength(3);
    expect(undated.some((q) => 'date' in q)).toBe(false);
    // The history's own items are not modified.
    expect(h.qa[0]!.date).toBe('2024-01-01');
    expect(h.qa[0]!.split).toBeUndefined();
  });

  it('budgetSubset takes B training items and every validation item, and smaller budgets are prefixes of larger ones', () => {
    const items = Array.from({ length: 50 }, (_, i) => item(`i${i}`, i % 2 ? 'x' : 'y', { split: i % 5 === 0 ? 'val' : 'train' }));
    const b10 = budgetSubset(items, 10);
    const b20 = budgetSubset(items, 20);
    expect(b10.filter((q) => q.split === 'train')).toHaveLength(10);
    expect(b20.filter((q) => q.split === 'train')).toHaveLength(20);
    expect(b10.filter((q) => q.split === 'val')).toEqual(items.filter((q) => q.split === 'val'));
    for (const q of b10) expect(b20).toContain(q);
    expect(budgetSubset(items, 1000)).toEqual(items);
  });

  it('officialQuestions samples a fixed subset per history, kept in data order', () => {
    const qa = Array.from({ length: 30 }, (_, i) => item(`q${i}`, 'p', { category: i % 3 ? 'fact' : 'temporal' }));
    const h = history('p', qa);
    const all = officialQuestions(h, { categories: [] });
    expect(all).toHaveLength(30);
    const s = officialQuestions(h, { categories: [], perHistory: 10 });
    expect(s).toHaveLength(10);
    expect(s).toEqual(qa.filter((q) => s.includes(q)));
    expect(officialQuestions(h, { categories: [], perHistory: 10 })).toEqual(s);
    expect(officialQuestions(h, { categories: ['temporal'] }).every((q) => q.category === 'temporal')).toBe(true);
  });
});

function trace(history: string, correct: boolean): QuestionTrace {
  return {
    question: `${history}-${correct}`,
    history,
    category: '1',
    ranked: [],
    rankedRecords: [],
    delivered: [],
    deliveredRecords: [],
    contextTokens: 0,
    contextText: '',
    answer: correct ? 'a' : 'b',
    reference: 'a',
    scores: { correct, correctBy: 'exact', f1: correct ? 1 : 0, recallAt: { '10': correct ? 1 : 0 }, contextRecall: 0 },
    timeMs: { store: 0, retrieve: 0, context: 0, answer: 0 },
    toolCalls: {},
  };
}

describe('development subsets', () => {
  it('names two LoCoMo conversations, two RHELM personas other than the embedded default, and LongMemEval samples', () => {
    expect(DEV_SUBSETS.locomo).toEqual(['conv-26', 'conv-30']);
    expect(DEV_SUBSETS.rhelm).toHaveLength(2);
    expect(DEV_SUBSETS.rhelm).not.toContain('Elena_Morales');
    expect(DEV_SUBSETS.longmemeval.length).toBeGreaterThan(0);
    expect(historySplit('conv-26')).toBe('dev');
    expect(historySplit('conv-41')).toBe('heldout');
    expect(devOnly('locomo', [{ id: 'conv-41' }, { id: 'conv-30' }])).toEqual([{ id: 'conv-30' }]);
  });

  it('scores development and held-out histories apart, and tables give each its own row', () => {
    const s = scoresFromTraces([trace('conv-26', true), trace('conv-41', false), trace('conv-42', false)]);
    expect(s.n).toBe(3);
    expect(s.split.dev).toMatchObject({ n: 1, accuracy: 1 });
    expect(s.split.heldout).toMatchObject({ n: 2, accuracy: 0 });
    expect(bySplit(['Base'], s, (p) => [pct(p.accuracy)])).toEqual([
      ['Base', 'dev', '1', '100.0'],
      ['Base', 'held-out', '2', '0.0'],
    ]);
    const heldOnly = scoresFromTraces([trace('conv-41', true)]);
    expect(heldOnly.split.dev).toBeNull();
    expect(bySplit(['x'], heldOnly, (p) => [String(p.n)])).toEqual([['x', 'held-out', '1', '1']]);
  });
});

describe('bench tables', () => {
  it('formats percentages, deltas and Markdown tables (numeric columns right-aligned, pipes escaped)', () => {
    expect(pct(0.12345)).toBe('12.3');
    expect(pct(null)).toBe('–');
    expect(delta(0.5, 0.25)).toBe('+25.0');
    expect(delta(0.25, 0.5)).toBe('-25.0');
    expect(delta(null, 0.5)).toBe('–');
    expect(delta(0.3, 0.30001)).toBe('+0.0');
    const md = markdownTable({
      title: 't',
      columns: ['method', 'R@10'],
      rows: [
        ['a|b', '12.3'],
        ['c', '–'],
      ],
    });
    expect(md.split('\n')).toEqual(['| method | R@10 |', '| --- | ---: |', '| a\\|b | 12.3 |', '| c | – |']);
  });

  it('names the rows that ended at the same design (same content hash, whatever the iteration)', () => {
    expect(
      sameDesignNote('RHELM', [
        { label: 'a', program: 'i004-abc' },
        { label: 'b', program: 'i000-abc' },
        { label: 'c', program: 'i002-def' },
      ]),
    ).toBe('RHELM: a and b ended at the same design, so their test scores are identical.');
    expect(
      sameDesignNote('X', [
        { label: 'a', program: 'i1-h' },
        { label: 'b', program: 'i2-h' },
        { label: 'c', program: 'i3-h' },
      ]),
    ).toBe('X: a, b and c ended at the same design, so their test scores are identical.');
    expect(
      sameDesignNote('X', [
        { label: 'a', program: 'i1-h' },
        { label: 'b', program: 'i1-g' },
      ]),
    ).toBeNull();
  });

  it('CLI flags: datasets from --data, experiment names checked, RHELM test sample', () => {
    const cfg = benchConfigFromFlags({
      dataset: 'rhelm',
      data: 'data/default',
      iterations: '2',
      out: '/tmp/x',
      rngSeed: '1',
      experiments: 'main,feedback',
      rhelmTest: 'all',
    });
    expect(cfg.datasets).toEqual([{ id: 'rhelm', source: expect.stringMatching(/^rhelm:.*data\/default\/rhelm$/) }]);
    expect(cfg.experiments).toEqual(['main', 'feedback']);
    expect(cfg.rhelmTestPerPersona).toBeNull();
    expect(() =>
      benchConfigFromFlags({
        dataset: 'rhelm',
        data: 'data/default',
        iterations: '2',
        out: '/tmp/x',
        rngSeed: '1',
        experiments: 'main,nope',
      }),
    ).toThrow(/--experiments "main,nope": unknown "nope"/);
    expect(() => benchConfigFromFlags({ dataset: 'locomo', data: 'data/default', iterations: '2', out: '/tmp/x', rngSeed: '1' })).toThrow(
      /locomo data not found/,
    );
  });
});

describe('generator without checks (supervision ablation)', () => {
  it('keeps candidates the checks would reject, marks them unchecked, and still records verifiable spans', async () => {
    const [h] = await loadHistories(DEFAULT_SOURCE);
    const checked = await generateSupervision(h!, { mode: 'offline', n: 40, checks: true });
    const unchecked = await generateSupervision(h!, { mode: 'offline', n: 40, checks: false });
    expect(unchecked.items).toHaveLength(40);
    const byId = new Map(h!.records.map((r) => [r.id, r.text]));
    for (const q of unchecked.items) {
      expect(q.checks?.planChecks).toBe('skipped');
      expect(q.checks?.blindReader).toBe('skipped');
      for (const e of q.evidence) expect(byId.get(e.record)!.slice(e.span![0], e.span![1])).toBe(e.quote);
    }
    expect(checked.items.every((q) => q.checks?.planChecks === 'pass')).toBe(true);
    // The checks reject candidates; without them those stages record no rejections and never run. (How many bundles
    // each run needs is not ordered: the types asked of a bundle follow what was kept before, so the runs diverge.)
    const rejectedByChecks = Object.entries(checked.summary.rejections)
      .filter(([k]) => /^(plan|question|blind):/.test(k))
      .reduce((n, [, c]) => n + c, 0);
    const rejectedUnchecked = Object.entries(unchecked.summary.rejections)
      .filter(([k]) => /^(question|blind):/.test(k))
      .reduce((n, [, c]) => n + c, 0);
    expect(rejectedByChecks).toBeGreaterThan(0);
    expect(rejectedUnchecked).toBe(0);
    const ran = (summary: typeof checked.summary, stage: string) => summary.stages.find((s) => s.stage === stage)?.in ?? 0;
    for (const stage of ['plan-checks', 'question-checks', 'blind']) {
      expect(ran(checked.summary, stage)).toBeGreaterThan(0);
      expect(ran(unchecked.summary, stage)).toBe(0);
    }
  }, 120_000);
});

describe('bench artefacts', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const manifest = (seed: string): ManifestInput => ({
    config: { iterations: 1, objective: 'evidence' },
    seeds: [{ path: `/tmp/${seed}.ts`, sha256: seed }],
    models: { proposer: 'offline-mutation' },
    promptVersions: {},
    rngSeed: 1,
    gitCommit: 'a'.repeat(40),
  });
  const val = (value: number) => ({
    objective: 'evidence',
    value,
    n: 2,
    perQuestion: { q1: value, q2: value },
    metrics: { 'recall@10': value },
  });

  /** A finished run in the workspace: seed evaluated, one accepted proposal, as runOptimize leaves it. */
  function run(ws: Workspace, name: string, seedSource: string, bestSource: string, seedVal: number, bestVal: number): CellResult {
    const dir = join(ws.runsDir, name);
    const a = createArchive(dir, manifest(name));
    const seed = a.addProgram({ iteration: 0, parent: null, source: seedSource, proposer: 'seed:x' });
    a.recordEvaluation(seed.id, { scores: val(seedVal) });
    a.recordDecision(seed.id, { accepted: true, reason: 'seed baseline', against: null });
    const best = a.addProgram({ iteration: 1, parent: seed.id, source: bestSource, proposer: 'offline-mutation:x', rationale: 'why' });
    a.recordEvaluation(best.id, { scores: val(bestVal) });
    a.recordDecision(best.id, { accepted: true, reason: 'better', against: seed.id });
    return {
      name,
      key: name.slice(-4),
      run: relative(ws.out, dir),
      seed: { id: seed.id, valFitness: seedVal },
      best: { id: best.id, valFitness: bestVal },
      bestSource,
      accepted: 1,
      proposals: 1,
      stopReason: 'iterations',
      train: 6,
      val: 2,
      seconds: 1,
      reused: false,
    };
  }

  it('writes best design, manifest and seed val score per run, names shared runs and transfer seeds, and replaces old artefacts', () => {
    const out = mkdtempSync(join(tmpdir(), 'memsteer-artefacts-'));
    dirs.push(out);
    const ws = openWorkspace(out);
    const base = 'export const base = 1;\n';
    const a = run(ws, 'locomo-main-generated-aaaa', base, 'export const a = 2;\n', 0.5, 0.75);
    const b = run(ws, 'rhelm-transfer-continue-bbbb', 'export const a = 2;\n', 'export const b = 3;\n', 0.6, 0.8);
    // The ablation's checks arm reuses the main run (a reused cell keeps the name it was made under).
    const used = [
      { request: 'locomo-main-generated', result: a },
      { request: 'locomo-ablation-checks', result: { ...a, reused: true } },
      { request: 'rhelm-transfer-continue-P', result: b },
    ];
    const files = writeArtefacts(ws, used, base);
    const art = join(out, 'artefacts');
    expect(files.map((f) => relative(art, f)).sort()).toEqual(
      [
        'README.md',
        'index.json',
        ...['locomo-main-generated-aaaa', 'rhelm-transfer-continue-bbbb'].flatMap((r) => [
          `${r}/best.ts`,
          `${r}/manifest.json`,
          `${r}/run.json`,
        ]),
      ].sort(),
    );
    expect(readFileSync(join(art, 'locomo-main-generated-aaaa', 'best.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(readFileSync(join(art, 'rhelm-transfer-continue-bbbb', 'manifest.json'), 'utf8')).toBe(
      readFileSync(join(ws.runsDir, 'rhelm-transfer-continue-bbbb', 'manifest.json'), 'utf8'),
    );
    const ra = RunArtefactSchema.parse(JSON.parse(readFileSync(join(art, 'locomo-main-generated-aaaa', 'run.json'), 'utf8')));
    expect(ra.cells).toEqual(['locomo-main-generated', 'locomo-ablation-checks']);
    expect(ra.seedFrom).toBe('seeds/base-bm25.ts');
    expect(ra.seed).toEqual({ id: a.seed.id, valFitness: 0.5, n: 2, metrics: { 'recall@10': 0.5 } });
    expect(ra.best.valFitness).toBe(0.75);
    expect(ra.lineage.map((p) => [p.id, p.valFitness])).toEqual([
      [a.seed.id, 0.5],
      [a.best.id, 0.75],
    ]);
    const index = ArtefactIndexSchema.parse(JSON.parse(readFileSync(join(art, 'index.json'), 'utf8')));
    expect(index.runs.map((r) => r.seedFrom)).toEqual(['seeds/base-bm25.ts', '../locomo-main-generated-aaaa/best.ts']);
    expect(index.runs[1]!.seed.valFitness).toBe(0.6);
    const readme = readFileSync(join(art, 'README.md'), 'utf8');
    expect(readme).toContain(
      '| [locomo-main-generated-aaaa](locomo-main-generated-aaaa/) | locomo-main-generated, locomo-ablation-checks |',
    );
    expect(readme).toContain('| locomo-main-generated-aaaa | 60.0 |');

    // A later bench that used only one run leaves no artefact of the other behind.
    writeArtefacts(ws, [used[2]!], base);
    expect(readdirSync(art).sort()).toEqual(['README.md', 'index.json', 'rhelm-transfer-continue-bbbb']);
    expect(readdirSync(out).filter((f) => f.includes('.tmp'))).toEqual([]);
    // The seed's origin is only named when the bench knows it; otherwise its hash.
    expect(ArtefactIndexSchema.parse(JSON.parse(readFileSync(join(art, 'index.json'), 'utf8'))).runs[0]!.seedFrom).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it('refuses a run whose recorded validation score disagrees with what the bench reported', () => {
    const out = mkdtempSync(join(tmpdir(), 'memsteer-artefacts-'));
    dirs.push(out);
    const ws = openWorkspace(out);
    const a = run(ws, 'x-1', 'export const s = 0;\n', 'export const t = 1;\n', 0.5, 0.7);
    expect(() => writeArtefacts(ws, [{ request: 'x', result: { ...a, seed: { ...a.seed, valFitness: 0.9 } } }], '')).toThrow(
      expect.objectContaining({ code: 'E_ARCHIVE_CORRUPT' }),
    );
    expect(existsSync(join(out, 'artefacts'))).toBe(false);
  });
});
