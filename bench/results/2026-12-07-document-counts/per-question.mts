// Context recall of every distinct candidate of a finished run on each question of a file, as the fidelity report
// evaluates them (same answerer, scorer, budget and evaluation cache), written as { candidateId: { questionId: recall } }
// over the scored questions (those with gold evidence).
// It lets several validation sets rank one fixed pool of designs, with no search re-run (pool-analysis.mts).
//   npx tsx bench/results/2026-12-07-document-counts/per-question.mts <run> <questions.jsonl> <out.json>
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openArchive } from '../../../src/archive/index.ts';
import { loadHistories } from '../../../src/history/load.ts';
import {
  evaluateCandidates,
  fidelityHistorySource,
  fidelityQuestions,
  scoredCandidates,
} from '../../../src/experiments/fidelity.ts';

const [runDir, questionsFile, out] = process.argv.slice(2) as [string, string, string];
const dir = resolve(runDir);
const archive = openArchive(dir);
const histories = await loadHistories(fidelityHistorySource(archive));
const questions = fidelityQuestions(histories, questionsFile, []);
const seen = new Set<string>();
const ids = scoredCandidates(archive)
  .filter((p) => !seen.has(p.contentHash) && seen.add(p.contentHash))
  .map((p) => p.id);
const evaluations = await evaluateCandidates(archive, ids, {
  histories,
  questions,
  contextBudget: Number(archive.manifest.config.contextBudget),
  cacheDir: join(dir, 'eval-cache'),
  onProgress: (p) => {
    if (p.done === p.total) process.stderr.write(`${p.program} ${p.total}\n`);
  },
});
// Only scored questions (with gold evidence), the ones the validation fitness and the official metric average; keyed
// by question id, as the validation files name them.
const result: Record<string, Record<string, number>> = {};
for (const [id, e] of evaluations)
  if (e.metrics) result[id] = Object.fromEntries([...e.scoredPerQuestion].map(([k, v]) => [k.slice(k.indexOf('\u0000') + 1), v]));
writeFileSync(out, JSON.stringify(result));
