/**
 * The calibration report of a generated supervision set against the histories' official questions (`memsteer generate
 * --report`): the seed design's context recall on both, and the per-history comparison of src/supervision/calibration.ts
 * with development and held-out histories apart.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONTEXT_BUDGET } from '../config/run-options.ts';
import { compileDesign } from '../design/compile.ts';
import { MemsteerError } from '../errors.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram } from '../evaluate/evaluate.ts';
import type { History, QAItem } from '../history/record.ts';
import { calibrate, seedKey, type CalibrationReport, type SeedScores } from '../supervision/calibration.ts';
import { historySplit } from './dev-subsets.ts';

/** The seed design whose difficulty gap the report measures (the design `npm start` and the experiments start from). */
export const REPORT_SEED = fileURLToPath(new URL('../../seeds/base-bm25.ts', import.meta.url));

/**
 * Context recall of the seed design on each item with evidence (offline answerer: the answer plays no part in
 * context recall), over every generated item (the gap reads the validation ones; the whole set gives the steadier
 * `generatedAll`) and the histories' official questions.
 */
export async function seedContextRecall(histories: readonly History[], items: readonly QAItem[], jobs?: number): Promise<SeedScores> {
  const compiled = await compileDesign(readFileSync(REPORT_SEED, 'utf8'), { fileName: 'base-bm25.ts' });
  if (!compiled.ok) throw new MemsteerError('E_COMPILE', `the report's seed design does not compile: ${compiled.diagnostics[0]?.message}`);
  const questions = [...items, ...histories.flatMap((h) => h.qa)].filter((q) => q.evidence.length > 0);
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
    const kind = new Map(h.records.map((r) => [r.id, r.kind]));
    return {
      id: h.id,
      recordText: (id: string) => text.get(id),
      recordKind: (id: string) => kind.get(id),
      generated: generated.filter((it) => it.history === h.id),
      official: h.qa,
    };
  });
  return calibrate(inputs, historySplit, seed);
}
