// Context recall of every distinct candidate of a finished run on each question of a file, as the fidelity report
// evaluates them (same answerer, scorer, budget and evaluation cache), written as { candidateId: { itemKey: recall } }
// over the scored questions (those with gold evidence), keyed by content key (item-key.mts).
// It lets several validation sets rank one fixed pool of designs, with no search re-run (pool-analysis.mts).
// The file may hold several sets together: an item that is in several is evaluated once, and items that share an id
// but differ (another asked day or evidence) are evaluated each.
//   npx tsx bench/results/2026-12-07-document-counts/per-question.mts <run> <questions.jsonl> <out.json>
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openArchive } from '../../../src/archive/index.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { evaluateCandidates, fidelityHistorySource, scoredCandidates } from '../../../src/experiments/fidelity.ts';
import { QAItemSchema, type QAItem } from '../../../src/history/record.ts';
import { readJsonl } from '../../../src/util/jsonl.ts';
import { contentKey } from './item-key.mts';

const [runDir, questionsFile, out] = process.argv.slice(2) as [string, string, string];
const dir = resolve(runDir);
const archive = openArchive(dir);
const histories = await loadHistories(fidelityHistorySource(archive));
// Evaluation keys a question by history and id, so each distinct item is evaluated under its content key as its id
// (the first line of each content key).
const distinct = new Map<string, QAItem>();
for (const item of readJsonl(resolve(questionsFile), QAItemSchema)) {
  const key = contentKey(item);
  if (!distinct.has(key)) distinct.set(key, { ...item, id: key });
}
const onRun = new Set(histories.map((h) => h.id));
const questions = [...distinct.values()].filter((q) => onRun.has(q.history));
process.stderr.write(`${distinct.size} distinct items, ${questions.length} on the run's histories\n`);
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
// by content key (the id they were evaluated under).
const result: Record<string, Record<string, number>> = {};
for (const [id, e] of evaluations)
  if (e.metrics) result[id] = Object.fromEntries([...e.scoredPerQuestion].map(([k, v]) => [k.slice(k.indexOf('\u0000') + 1), v]));
writeFileSync(out, JSON.stringify(result));
