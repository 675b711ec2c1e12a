// Context recall of every distinct candidate of a finished run on each question of a file, as the fidelity report
// evaluates them (same answerer, scorer, budget and evaluation cache), written as { candidateId: { questionId: recall } }
// over the scored questions (those with gold evidence).
// It lets several validation sets rank one fixed pool of designs, with no search re-run (pool-analysis.mts).
//   npx tsx bench/results/2026-12-07-document-counts/per-question.mts <run> <questions.jsonl> <out.json>
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openArchive } from '../../../src/archive/index.ts';
import { compileDesign } from '../../../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom } from '../../../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram } from '../../../src/evaluate/evaluate.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { summarize } from '../../../src/scoring/summary.ts';
import { fidelityHistorySource, fidelityQuestions, scoredCandidates } from '../../../src/experiments/fidelity.ts';

const [runDir, questionsFile, out] = process.argv.slice(2) as [string, string, string];
const dir = resolve(runDir);
const archive = openArchive(dir);
const histories = await loadHistories(fidelityHistorySource(archive));
const questions = fidelityQuestions(histories, questionsFile, []);
const seen = new Set<string>();
const programs = scoredCandidates(archive).filter((p) => !seen.has(p.contentHash) && seen.add(p.contentHash));
const pool = createEvalPool({});
const answerer = evalAnswererFrom(null);
const scorer = evalScorerFrom(null);
const result: Record<string, Record<string, number>> = {};
try {
  for (const p of programs) {
    const compiled = await compileDesign(archive.source(p.id));
    if (!compiled.ok) continue;
    const r = await evaluateProgram({
      program: compiled.program,
      histories,
      questions,
      budget: { tokens: Number(archive.manifest.config.contextBudget) },
      answerer,
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize,
      pool,
      cacheDir: join(dir, 'eval-cache'),
    });
    // Only scored questions (with gold evidence), the ones the validation fitness and the official metric average.
    const scored = r.traces.filter((t) => t.scores && Object.keys(t.scores.recallAt).length > 0);
    result[p.id] = Object.fromEntries(scored.map((t) => [t.question, t.scores!.contextRecall]));
    process.stderr.write(`${p.id} ${r.traces.length}\n`);
  }
} finally {
  await pool.close();
}
writeFileSync(out, JSON.stringify(result));
