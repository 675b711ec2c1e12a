/**
 * Done-when of issue 6 item 3: a design exported from a real (small, offline) run answers questions from a separate
 * app folder through `import { createMemory } from 'memsteer'`, sandboxed and in-process, and what it delivers —
 * context text, unit ids and evidence record ids — equals evaluation of the same program on the same questions,
 * for undated questions (one memory) and dated ones (one memory per visible record set).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../src/archive/index.ts';
import { compileDesign } from '../src/design/compile.ts';
import { cutoffInstant, recordInstant } from '../src/evaluate/date-filter.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram } from '../src/evaluate/evaluate.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';
import { ExportManifestSchema } from '../src/export/design-manifest.ts';
import { exportDesign, type ExportResult } from '../src/export/export-design.ts';
import { testScoresEvent } from '../src/export/test-scores.ts';
import type { QAItem } from '../src/history/record.ts';
import { runOptimize, type OptimizeReport } from '../src/optimize/run-optimize.ts';
import { REPO_ROOT, SEED_PATH, prepareDefaultRun, type DefaultRun } from './fixtures/optimize/default-run.ts';

const run$ = promisify(execFile);

interface AppOutput {
  info: { design: string; hash: string; sandboxed: boolean; budget: number; exported: string | null };
  added: { ids: string[]; records: number; units: number };
  answers: Array<{
    id: string;
    context: string;
    tokens: number;
    units: string[];
    evidence: Array<{ record: string; text: string; time?: string }>;
  }>;
}

let run: DefaultRun;
let report: OptimizeReport;
let exported: ExportResult;
let questions: QAItem[];
let traces: QuestionTrace[];
let evalGroups: number;
const apps: Record<'sandbox' | 'in-process', AppOutput> = {} as never;

beforeAll(async () => {
  run = await prepareDefaultRun('export-app', 80);
  const runDir = join(run.dir, 'run');
  report = await runOptimize({
    out: runDir,
    config: {
      history: run.source,
      supervision: run.supervisionPath,
      seed: SEED_PATH,
      iterations: 2,
      offline: true,
      limit: 20,
      testCategories: ['fact'],
    },
  });
  // What the optimizer's final test measured, recorded the way export reads it.
  const test = report.best.test!;
  const metrics: Record<string, number> = { accuracy: test.accuracy, f1: test.f1 };
  if (test.recallAt10 !== null) metrics['recall@10'] = test.recallAt10;
  if (test.contextRecall !== null) metrics.contextRecall = test.contextRecall;
  openArchive(runDir).appendEvent(testScoresEvent({ program: report.best.id, value: test.fitness, n: test.n, metrics }));
  exported = await exportDesign({ run: runDir, out: join(run.dir, 'export') });

  // Dated official questions (RHELM: every one has a date) and undated generated ones. Generated items are asked the
  // day after the last record (every record visible); without that day they take the undated path.
  const dated = run.history.qa.filter((q) => q.category === 'fact').slice(0, 8);
  const undated = run.splits.val.slice(0, 6).map(({ date: _asked, ...q }): QAItem => q);
  questions = [...dated, ...undated];
  expect(dated.every((q) => q.date)).toBe(true);
  expect(undated.every((q) => !q.date)).toBe(true);

  // The app folder: its own package.json, and memsteer installed as a link (as `npm link` would).
  const appDir = join(run.dir, 'app');
  mkdirSync(join(appDir, 'node_modules'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'export-app', 'app.ts'), join(appDir, 'app.ts'));
  writeFileSync(
    join(appDir, 'package.json'),
    JSON.stringify({ name: 'memsteer-export-app', private: true, type: 'module', dependencies: { memsteer: 'link:memsteer' } }, null, 2),
  );
  symlinkSync(REPO_ROOT, join(appDir, 'node_modules', 'memsteer'), 'dir');
  const recordsPath = join(run.dir, 'records.json');
  const questionsPath = join(run.dir, 'questions.json');
  writeFileSync(recordsPath, JSON.stringify(run.history.records));
  writeFileSync(questionsPath, JSON.stringify(questions.map((q) => ({ id: q.id, text: q.question, ...(q.date ? { date: q.date } : {}) }))));
  const runApp = async (mode: 'sandbox' | 'in-process') => {
    // cwd is the repository only so `--import tsx` resolves; `memsteer` resolves from the app's node_modules.
    const { stdout } = await run$(
      process.execPath,
      ['--import', 'tsx', join(appDir, 'app.ts'), exported.files.design, recordsPath, questionsPath, mode],
      {
        cwd: REPO_ROOT,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    apps[mode] = JSON.parse(stdout) as AppOutput;
  };

  // Evaluation of the archived program (its own source, contract import as archived).
  const compiled = await compileDesign(openArchive(runDir).source(report.best.id));
  if (!compiled.ok) throw new Error('the archived program does not compile');
  const pool = createEvalPool({ size: 1 });
  const evaluate = async () => {
    try {
      const scorer = evalScorerFrom(null);
      const r = await evaluateProgram({
        program: compiled.program,
        histories: [run.history],
        questions,
        budget: { tokens: exported.manifest.budget.tokens },
        answerer: evalAnswererFrom(null),
        score: scorer.score,
        judgeId: scorer.judgeId,
        summarize: summarizeTraces,
        pool,
        // The app stores the records visible at each question's date in a memory of their own: the per-group
        // protocol. One-pass replay grows memory with `add` in time order, which may order units differently from
        // `store` over the same records, and so break exact score ties the other way.
        replay: 'groups',
      });
      traces = r.traces;
      evalGroups = r.stats.groups;
    } finally {
      await pool.close();
    }
  };
  await Promise.all([evaluate(), runApp('sandbox'), runApp('in-process')]);
}, 600_000);

describe('an exported design in a separate app', () => {
  it("exports the run's best program with its provenance and scores", () => {
    const m = ExportManifestSchema.parse(JSON.parse(readFileSync(exported.files.manifest, 'utf8')));
    expect(m.program).toMatchObject({ id: report.best.id, best: true });
    expect(m.lineage[0]).toMatchObject({ id: report.seed.id, kind: 'seed' });
    expect(m.lineage.at(-1)!.id).toBe(report.best.id);
    expect(m.scores.val?.value).toBeCloseTo(report.trajectory.find((t) => t.program === report.best.id)?.score ?? m.lineage[0]!.score!, 10);
    expect(m.scores.test).toMatchObject({ value: report.best.test!.fitness, n: report.best.test!.n });
    expect(m.history.source).toBe(run.source);
    expect(readFileSync(exported.files.design, 'utf8')).toContain("from 'memsteer/contract'");
    expect(readFileSync(exported.files.readme, 'utf8')).toContain(`official test QA | ${report.best.test!.n} |`);
  });

  it.each(['sandbox', 'in-process'] as const)("%s: loads through the package with design.json's budget", (mode) => {
    const app = apps[mode];
    expect(app.info).toMatchObject({
      design: exported.files.design,
      sandboxed: mode === 'sandbox',
      budget: exported.manifest.budget.tokens,
      exported: report.best.id,
    });
    expect(app.added.records).toBe(run.history.records.length);
    expect(app.answers).toHaveLength(questions.length);
  });

  it.each(['sandbox', 'in-process'] as const)('%s: delivers exactly what evaluation delivered, question by question', (mode) => {
    const app = apps[mode];
    expect(traces.filter((t) => t.error)).toEqual([]);
    // More than one memory build: the dated questions really were answered from earlier slices of the history.
    expect(evalGroups).toBeGreaterThan(2);
    let withEvidence = 0;
    questions.forEach((q, i) => {
      const a = app.answers[i]!;
      const t = traces[i]!;
      expect(a.id).toBe(q.id);
      expect(t.question).toBe(q.id);
      expect(a.units).toEqual(t.delivered);
      expect(a.evidence.map((e) => e.record)).toEqual(t.deliveredRecords);
      expect(a.context).toBe(t.contextText);
      expect(a.tokens).toBe(t.contextTokens);
      if (a.evidence.length) withEvidence++;
    });
    expect(withEvidence).toBe(questions.length);
    expect(apps.sandbox.answers).toEqual(apps['in-process'].answers);
  });

  it('gives each dated question only records from on or before its date, with their text', () => {
    const byId = new Map(run.history.records.map((r) => [r.id, r]));
    for (const [i, q] of questions.entries()) {
      const cutoff = cutoffInstant(q.date);
      for (const e of apps.sandbox.answers[i]!.evidence) {
        const r = byId.get(e.record)!;
        expect(e.text).toBe(r.text);
        expect(e.time).toBe(r.time);
        const t = recordInstant(r.time);
        if (cutoff !== null && t !== null) expect(t).toBeLessThanOrEqual(cutoff);
      }
    }
  });
});
