import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { DEFAULT_CONTEXT_BUDGET } from '../../config/run-options.ts';
import { compileDesign } from '../../design/compile.ts';
import { MemsteerError } from '../../errors.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../../evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram } from '../../evaluate/evaluate.ts';
import { historySplit } from '../../experiments/dev-subsets.ts';
import type { History, QAItem } from '../../history/record.ts';
import {
  calibrate,
  QUESTION_FORMS,
  seedKey,
  type CalibrationPart,
  type CalibrationReport,
  type SeedScores,
} from '../../supervision/calibration.ts';

/** The seed design whose difficulty gap the report measures (the design `npm start` and the experiments start from). */
export const REPORT_SEED = fileURLToPath(new URL('../../../seeds/base-bm25.ts', import.meta.url));

/**
 * Context recall of the seed design on each item with evidence (offline answerer: the answer plays no part in
 * context recall), over the generated validation items and the histories' official questions.
 */
export async function seedContextRecall(histories: readonly History[], items: readonly QAItem[], jobs?: number): Promise<SeedScores> {
  const compiled = await compileDesign(readFileSync(REPORT_SEED, 'utf8'), { fileName: 'base-bm25.ts' });
  if (!compiled.ok) throw new MemsteerError('E_COMPILE', `the report's seed design does not compile: ${compiled.diagnostics[0]?.message}`);
  const questions = [...items.filter((it) => it.split === 'val'), ...histories.flatMap((h) => h.qa)].filter((q) => q.evidence.length > 0);
  const contextRecall = new Map<string, number>();
  if (questions.length) {
    const pool = createEvalPool(jobs ? { size: jobs } : {});
    const scorer = evalScorerFrom(null);
    try {
      const result = await evaluateProgram({
        program: compiled.program,
        histories,
        questions,
        budget: { tokens: DEFAULT_CONTEXT_BUDGET },
        answerer: evalAnswererFrom(null),
        score: scorer.score,
        judgeId: scorer.judgeId,
        summarize: summarizeTraces,
        pool,
      });
      // A question whose run failed delivered nothing: recall 0, as the eval summary counts it.
      for (const t of result.traces) contextRecall.set(seedKey({ history: t.history, id: t.question }), t.scores?.contextRecall ?? 0);
    } finally {
      await pool.close();
    }
  }
  return { design: 'seeds/base-bm25.ts', contextRecall };
}

/** The calibration report of generated items against the histories' official questions. */
export function calibrationReport(histories: readonly History[], generated: readonly QAItem[], seed?: SeedScores): CalibrationReport {
  const inputs = histories.map((h) => {
    const text = new Map(h.records.map((r) => [r.id, r.title ? `${r.title}\n${r.text}` : r.text]));
    return { id: h.id, recordText: (id: string) => text.get(id), generated: generated.filter((it) => it.history === h.id), official: h.qa };
  });
  return calibrate(inputs, historySplit, seed);
}

const PLAIN = { head: [] as string[], border: [] as string[] };
const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`);

function partRows(name: string, p: CalibrationPart): string[][] {
  const g = p.generated;
  const o = p.official;
  const forms = (s: typeof g) =>
    QUESTION_FORMS.filter((f) => s.forms[f] >= 0.005)
      .sort((a, b) => s.forms[b] - s.forms[a])
      .map((f) => `${f} ${Math.round(s.forms[f] * 100)}`)
      .join(' ');
  const ev = (s: typeof g) => `${s.meanEvidence.toFixed(2)} (${['1', '2', '3', '4+'].map((b) => s.evidenceCounts[b as '1']).join('/')})`;
  return [
    [name, 'generated', String(g.items), forms(g), pct(g.noOverlapShare), ev(g), pct(p.seed?.generatedVal)],
    ['', 'official', o ? String(o.items) : '—', o ? forms(o) : '—', pct(o?.noOverlapShare), o ? ev(o) : '—', pct(p.seed?.official)],
    [
      '',
      'difference',
      '',
      p.formDistance === null ? '—' : `TVD ${p.formDistance.toFixed(2)}`,
      p.noOverlapGap === null ? '—' : `${(p.noOverlapGap * 100).toFixed(1)} pts`,
      '',
      p.seed?.gap == null ? '—' : `${(p.seed.gap * 100).toFixed(1)} pts`,
    ],
  ];
}

/** The report as a plain table: development histories, held-out ones, all; each generated vs official. */
export function calibrationTable(r: CalibrationReport): string {
  const t = new Table({
    head: ['histories', 'set', 'items', 'question forms (%)', 'no content overlap', 'evidence mean (1/2/3/4+)', 'seed ctx recall'],
    style: PLAIN,
  });
  if (r.dev) t.push(...partRows(`dev: ${r.dev.histories.join(', ')}`, r.dev));
  if (r.heldout) t.push(...partRows(`held-out (${r.heldout.histories.length})`, r.heldout));
  if (r.dev && r.heldout) t.push(...partRows('all', r.all));
  return `calibration (content words: ${r.contentWords}; seed: ${r.all.seed?.design ?? 'not run'})\n${t.toString()}`;
}
