/**
 * `memsteer report --fidelity` on a small run written directly (no search): every scored candidate is evaluated on
 * the history's official QA in the sandbox pool, the agreement with validation is computed from those numbers, and
 * fidelity.json is written (validated) beside an archive it leaves untouched; the terminal table and the HTML page
 * show it. Validation fitness is set by hand so that validation prefers a design the official questions do not.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireRunLock, createArchive, type Archive, type ProgramRecord } from '../src/archive/index.ts';
import { captureIO } from '../src/cli/io.ts';
import { renderFidelity, runReportCommand } from '../src/cli/commands/report.ts';
import { fidelitySection } from '../src/report/fidelity-html.ts';
import { computeFidelity, type FidelityProgress } from '../src/experiments/fidelity.ts';
import { FIDELITY_FILE, FidelityReportSchema, readFidelity, type FidelityReport } from '../src/experiments/fidelity-schema.ts';
import { agreementOf } from '../src/experiments/fidelity-stats.ts';
import { SEED_PATH } from './fixtures/optimize/default-run.ts';
import { trace } from './report-fixture.ts';
import { QAItemSchema, type QAItem } from '../src/history/record.ts';
import { writeJsonl } from '../src/util/jsonl.ts';

const HISTORY = `locomo:${resolve('test/fixtures/history/locomo-mini.json')}`;
const BASE = readFileSync(SEED_PATH, 'utf8');
const SOURCES = {
  seed: BASE,
  top1: BASE.replace('const TOP_K = 50;', 'const TOP_K = 1;'),
  // Retrieves nothing: official context recall 0 whatever the question.
  blind: BASE.replace('if (memory.units.length === 0) return [];', 'if (memory.units.length >= 0) return [];'),
};

let root: string;
let dir: string;
let ids: { seed: string; top1: string; blind: string; twin: string; invalid: string };

/** sha256 of every file of the run except fidelity.json and the evaluation cache: what fidelity must not change. */
function archiveDigest(d: string): string {
  const h = createHash('sha256');
  const walk = (p: string, rel: string) => {
    for (const name of readdirSync(p).sort()) {
      const full = join(p, name);
      const r = join(rel, name);
      if (r === FIDELITY_FILE || r === 'eval-cache' || r === 'report.html') continue;
      if (statSync(full).isDirectory()) walk(full, r);
      else h.update(r).update(readFileSync(full));
    }
  };
  walk(d, '');
  return h.digest('hex');
}

function scored(archive: Archive, p: ProgramRecord, value: number, accepted: boolean, against: string | null): void {
  archive.recordEvaluation(p.id, {
    scores: { objective: 'evidence', value, n: 4, perQuestion: { 'conv-1/a': value }, metrics: { contextRecall: value } },
  });
  archive.recordDecision(p.id, { accepted, reason: accepted ? 'better' : 'not better', against });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'memsteer-fidelity-'));
  dir = join(root, 'run');
  const archive = createArchive(dir, {
    config: { history: HISTORY, objective: 'evidence', contextBudget: 300, testCategories: [] },
    seeds: [{ path: 'seeds/base-bm25.ts', sha256: '0'.repeat(64) }],
    models: { proposer: 'offline-mutation', answerer: 'extractive-reader', judge: 'f1-threshold' },
    promptVersions: {},
    rngSeed: 1,
  });
  const seed = archive.addProgram({ iteration: 0, parent: null, source: SOURCES.seed, proposer: 'seed' });
  scored(archive, seed, 0.5, true, null);
  const top1 = archive.addProgram({ iteration: 1, parent: seed.id, source: SOURCES.top1, proposer: 'offline:set-constant' });
  scored(archive, top1, 0.6, true, seed.id);
  const blind = archive.addProgram({ iteration: 2, parent: top1.id, source: SOURCES.blind, proposer: 'offline:x' });
  scored(archive, blind, 0.1, false, top1.id);
  const invalid = archive.addProgram({
    iteration: 3,
    parent: top1.id,
    edits: [],
    failure: { stage: 'compile', message: 'type error' },
  });
  // The same source proposed again later: evaluated once, counted once.
  const twin = archive.addProgram({ iteration: 4, parent: top1.id, source: SOURCES.top1, proposer: 'offline:set-constant' });
  scored(archive, twin, 0.6, false, top1.id);
  ids = { seed: seed.id, top1: top1.id, blind: blind.id, twin: twin.id, invalid: invalid.id };
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('computeFidelity', () => {
  let report: FidelityReport;
  const progress: FidelityProgress[] = [];
  let before: string;

  beforeAll(async () => {
    before = archiveDigest(dir);
    report = await computeFidelity(dir, { jobs: 1, onProgress: (p) => progress.push(p), now: () => new Date('2026-01-01T00:00:00Z') });
  });

  it('evaluates each scored candidate with a distinct source once, on the official questions', () => {
    expect(report.candidates.map((c) => c.id)).toEqual([ids.seed, ids.top1, ids.blind, ids.twin]);
    expect(report.distinct).toBe(3);
    expect(report.questionCount).toBe(5);
    expect(report.histories).toEqual(['conv-1', 'conv-2']);
    const evaluated = [...new Set(progress.map((p) => p.program))];
    expect(evaluated).toEqual([ids.seed, ids.top1, ids.blind]);
    expect(progress.every((p) => p.candidates === 3 && p.total === 5)).toBe(true);
    for (const id of evaluated) expect(progress.filter((p) => p.program === id && p.done === 5)).toHaveLength(1);
    const twin = report.candidates.find((c) => c.id === ids.twin)!;
    expect(twin.sameAs).toBe(ids.top1);
    expect(twin.official).toEqual(report.candidates.find((c) => c.id === ids.top1)!.official);
  });

  it('measures the candidates on the host: a design that retrieves nothing recalls nothing', () => {
    const by = (id: string) => report.candidates.find((c) => c.id === id)!.official!;
    expect(by(ids.blind).contextRecall).toBe(0);
    expect(by(ids.blind).recallAt10).toBe(0);
    expect(by(ids.seed).contextRecall!).toBeGreaterThan(0);
    expect(by(ids.seed).contextRecall!).toBeGreaterThanOrEqual(by(ids.top1).contextRecall!);
    expect(report.candidates.map((c) => c.valFitness)).toEqual([0.5, 0.6, 0.1, 0.6]);
  });

  it('computes τ-b, Spearman and regret from the distinct candidates’ validation and official numbers', () => {
    const distinct = report.candidates.filter((c) => c.sameAs === null);
    for (const metric of ['contextRecall', 'recallAt10'] as const) {
      const expected = agreementOf(distinct.map((c) => ({ id: c.id, val: c.valFitness, official: c.official![metric]! })));
      expect(report[metric]).toEqual(expected);
    }
    // Validation picks top1 (0.6); the official best is the seed unless top1 ties it.
    expect(report.contextRecall.regret!.chosen).toBe(ids.top1);
    const seedCtx = report.candidates[0]!.official!.contextRecall!;
    const top1Ctx = report.candidates[1]!.official!.contextRecall!;
    expect(report.contextRecall.regret!.regret).toBeCloseTo(seedCtx - top1Ctx, 12);
    expect(report.runBest).toBe(ids.top1);
  });

  it('gives the official ranking’s split-half reliability over every distinct candidate, none for validation without traces', () => {
    // 3 distinct candidates on 5 questions; the blind design scores 0 everywhere, so halves mostly agree it is last
    expect(report.reliability?.official).toMatchObject({ candidates: 3, questions: 5 });
    expect(report.reliability!.official!.splits).toBeGreaterThan(0);
    expect(report.reliability!.official!.p10).toBeLessThanOrEqual(report.reliability!.official!.p90);
    // the official ceiling on agreement is over the same questions and candidates, and at least the split-half τ-b
    expect(report.officialCeiling).toMatchObject({ candidates: 3, questions: 5, resamples: 1000 });
    expect(report.officialCeiling!.meanTauB).toBeGreaterThanOrEqual(report.reliability!.official!.meanTauB);
    // the run recorded no validation traces: the statistic is undefined, not computed over a subset of candidates
    expect(report.reliability?.validation).toBeNull();
    // …and names no supervision file: no per-template agreement either, and no interval of the validation τ-b
    expect(report.byTemplate).toBeNull();
    expect(report.tauInterval).toBeNull();
  });

  it("replays the search's decisions on official scores: each decided proposal against its parent, twins left out", () => {
    const d = report.decisions!;
    expect(d.decisions.map((x) => [x.id, x.parent, x.move, x.accepted])).toEqual([
      [ids.top1, ids.seed, 'offline:set-constant', true],
      [ids.blind, ids.top1, 'offline:x', false],
    ]);
    const ctx = (id: string) => report.candidates.find((c) => c.id === id)!.official!.contextRecall!;
    expect(d.decisions[0]!.officialDelta).toBeCloseTo(ctx(ids.top1) - ctx(ids.seed), 12);
    expect(d.decisions[0]!.valDelta).toBeCloseTo(0.1, 12);
    // the blind design recalls nothing on every question the parent recalled something on
    expect(d.decisions[1]!.officialDelta).toBeCloseTo(-ctx(ids.top1), 12);
    expect(d.agree + d.disagree + d.unclear).toBe(2);
    expect(d.byMove.map((m) => m.move).sort()).toEqual(['offline:set-constant', 'offline:x']);
    // each move's official change split by the LoCoMo categories of the questions, adding up to it
    for (const m of d.byMove) {
      const decision = d.decisions.find((x) => x.move === m.move)!;
      expect(m.officialByCategory!.reduce((sum, g) => sum + g.share, 0)).toBeCloseTo(decision.officialDelta, 12);
      expect(m.officialByCategory!.every((g) => /^[1-5]$/.test(g.group))).toBe(true);
    }
    expect(d.byMove.find((m) => m.move === 'offline:x')!.officialByCategory!.length).toBeGreaterThan(0);
  });

  it('writes fidelity.json (valid) and leaves the archive as it was', () => {
    const onDisk = FidelityReportSchema.parse(JSON.parse(readFileSync(join(dir, FIDELITY_FILE), 'utf8')));
    expect(onDisk).toEqual(report);
    expect(readFidelity(dir)).toEqual(report);
    expect(archiveDigest(dir)).toBe(before);
  });
});

describe('memsteer report --fidelity', () => {
  it('prints τ, Spearman and regret, and puts the section in the HTML page', async () => {
    const io = captureIO();
    const out = join(root, 'page.html');
    const f = await runReportCommand(dir, { fidelity: true, jobs: 1, out }, io);
    expect(f).not.toBeNull();
    expect(io.stdout).toMatch(/Kendall τ-b/);
    expect(io.stdout).toMatch(/Spearman ρ/);
    expect(io.stdout).toContain(f!.contextRecall.kendallTauB === null ? '–' : f!.contextRecall.kendallTauB.toFixed(2));
    expect(io.stdout).toContain(`= ${ids.top1}`);
    expect(io.stdout).toContain('split-half reliability');
    expect(io.stdout).toContain(`bootstrap resamples', mean [p10, p90]): ${f!.officialCeiling!.meanTauB.toFixed(2)}`);
    expect(io.stderr).toContain(`candidate 3/3 ${ids.blind}`);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<section id="fidelity">');
    expect(html).toContain('Kendall τ-b');
    expect(html).toContain(ids.blind);
    expect(html).toContain('Split-half reliability');
    expect(html).toContain('The most any validation set could reach against these official questions');
    expect(io.stdout).toContain("The search's 2 decisions replayed on official context recall");
    expect(html).toContain('The search&#39;s 2 decisions replayed on official context recall');
    expect(io.stdout).toContain("Where each move's official change came from");
    expect(html).toContain('Where each move&#39;s official change came from');
  });

  it('--json prints the fidelity report', async () => {
    const io = captureIO();
    await runReportCommand(dir, { fidelity: true, jobs: 1, json: true, out: join(root, 'p2.html') }, io);
    const parsed = JSON.parse(io.stdout) as { fidelity: unknown; report: { path: string } };
    expect(FidelityReportSchema.parse(parsed.fidelity).distinct).toBe(3);
    expect(parsed.report.path).toBe(join(root, 'p2.html'));
  });

  it('refuses the fidelity flags without --fidelity, and a history with no official QA left', async () => {
    await expect(runReportCommand(dir, { excludeDev: true }, captureIO())).rejects.toMatchObject({ code: 'E_BAD_FLAG' });
    await expect(
      runReportCommand(dir, { fidelity: true, history: `${HISTORY}#conv-2`, out: join(root, 'p3.html') }, captureIO()),
    ).rejects.toMatchObject({ code: 'E_NO_QUESTIONS' });
  });
});

describe('fidelity and the run lock', () => {
  it('refuses a run another process is writing', async () => {
    const lock = acquireRunLock(dir, { command: 'optimize --resume' });
    try {
      await expect(computeFidelity(dir, { jobs: 1 })).rejects.toMatchObject({ code: 'E_RUN_LOCKED' });
    } finally {
      lock.release();
    }
  });
});

describe('fidelity question sets', () => {
  it('takes the categories asked for, or a QA file instead of the official questions', async () => {
    const byCategory = await computeFidelity(dir, { jobs: 1, categories: ['2'] });
    expect(byCategory.categories).toEqual(['2']);
    expect(byCategory.questionCount).toBe(2);
    const file = join(root, 'questions.jsonl');
    writeJsonl(
      file,
      [
        {
          id: 'x1',
          history: 'conv-1',
          question: 'Who ran a charity race?',
          answer: 'Ann',
          answerType: 'text',
          evidence: [{ record: 'D1:1' }],
        },
        { id: 'x2', history: 'elsewhere', question: 'Not about a loaded history?', answer: 'no', answerType: 'text', evidence: [] },
      ],
      QAItemSchema,
    );
    const fromFile = await computeFidelity(dir, { jobs: 1, questions: file });
    expect(fromFile.questions).toBe(file);
    expect(fromFile.questionCount).toBe(1);
    expect(fromFile.candidates.find((c) => c.id === ids.blind)!.official!.contextRecall).toBe(0);
    expect(fromFile.candidates.find((c) => c.id === ids.seed)!.official!.contextRecall).toBe(1);
  });
});

describe('fidelity per validation template', () => {
  it("ranks the candidates by each template's validation items against the official context recall", async () => {
    const official = await computeFidelity(dir, { jobs: 1 });
    const officialOf = (source: keyof typeof SOURCES) =>
      official.candidates.find((c) => c.id === ids[source as 'seed' | 'top1' | 'blind'])!.official!.contextRecall!;
    // Validation items of two templates: "agrees" scores each candidate as the official questions do, "reverses"
    // the other way round. The run's manifest names the supervision file the items (and their templates) come from.
    const supervision = join(root, 'templated-supervision.jsonl');
    const items: QAItem[] = ['a1', 'a2', 'a3', 'a4', 'a5', 'r1', 'r2', 'r3', 'r4', 'r5'].map((id) => ({
      id,
      history: 'h1',
      question: `Question ${id}?`,
      answer: 'yes',
      answerType: 'text',
      evidence: [{ record: 'r1' }],
      split: 'val',
      checks: { template: id.startsWith('a') ? 'agrees' : 'reverses' },
    }));
    writeJsonl(supervision, items, QAItemSchema);
    const run = join(root, 'templated');
    const archive = createArchive(run, {
      config: { history: HISTORY, objective: 'evidence', contextBudget: 300, testCategories: [], supervision },
      seeds: [{ path: 'seeds/base-bm25.ts', sha256: '0'.repeat(64) }],
      models: { proposer: 'offline-mutation', answerer: 'extractive-reader', judge: 'f1-threshold' },
      promptVersions: {},
      rngSeed: 1,
    });
    let parent: string | null = null;
    for (const [i, source] of (['seed', 'top1', 'blind'] as const).entries()) {
      const p = archive.addProgram({ iteration: i, parent, source: SOURCES[source], proposer: i ? 'offline:x' : 'seed' });
      const o = officialOf(source);
      const traces = items.map((it) => trace(it.id, 'single-hop', it.id.startsWith('a') ? o : 1 - o));
      archive.recordEvaluation(p.id, {
        scores: { objective: 'evidence', value: 0.5 - i * 0.1, n: items.length, perQuestion: {}, metrics: { contextRecall: 0.5 } },
        traces,
      });
      archive.recordDecision(p.id, { accepted: i === 0, reason: 'test', against: parent });
      parent ??= p.id;
    }
    const report = await computeFidelity(run, { jobs: 1 });
    expect(report.byTemplate).toEqual([
      { group: 'agrees', items: 5, kendallTauB: 1, spearman: 1 },
      { group: 'reverses', items: 5, kendallTauB: -1, spearman: -1 },
    ]);
    expect(FidelityReportSchema.parse(readFidelity(run)).byTemplate).toHaveLength(2);
    expect(renderFidelity(report)).toMatch(/validation template[\s\S]*agrees\s*│\s*5\s*│\s*1\.00[\s\S]*reverses\s*│\s*5\s*│\s*-1\.00/);
    expect(fidelitySection(report)).toContain('<td>reverses</td><td class="num">5</td><td class="num">-1.00</td>');
    // Both proposals came from the seed with the same move. Their validation change, split by template: each "agrees"
    // item moved as the official score did (mean of the two), each "reverses" item the other way, 5 of 10 items each.
    const pooled = (officialOf('top1') - officialOf('seed') + (officialOf('blind') - officialOf('seed'))) / 2;
    const shares = report.decisions!.byMove[0]!.valByTemplate!;
    // equal shares either way: by name
    expect(shares.map((t) => [t.group, t.items])).toEqual([
      ['agrees', 5],
      ['reverses', 5],
    ]);
    expect(shares.find((t) => t.group === 'agrees')!.share).toBeCloseTo(pooled / 2, 12);
    expect(shares.find((t) => t.group === 'reverses')!.share).toBeCloseTo(-pooled / 2, 12);
    expect(renderFidelity(report)).toContain("Where each move's validation change came from");
    expect(renderFidelity(report)).toMatch(/offline:x\s*│\s*−15\.00 pts\s*│\s*(agrees|reverses) [+−]\d+\.\d\d \(5\), (agrees|reverses)/);
    expect(fidelitySection(report)).toContain('Where each move&#39;s validation change came from');
    // The two templates cancel (every candidate's mean validation score is 0.5 up to rounding): resampled, the
    // validation ranking is anything, and the interval of τ-b spans the whole range.
    expect(report.tauInterval).toMatchObject({ lower: -1, upper: 1, items: 10, questions: 5 });
    const withInterval = {
      ...report,
      tauInterval: { kendallTauB: 0.6, lower: 0.31, upper: 0.82, level: 0.95, resamples: 1000, items: 10, questions: 5 },
    };
    expect(renderFidelity(withInterval)).toContain(
      '95% bootstrap interval: 0.60 [0.31, 0.82] (10 validation items and 5 official questions',
    );
    expect(fidelitySection(withInterval)).toContain('0.60 [0.31, 0.82]');
  });
});
