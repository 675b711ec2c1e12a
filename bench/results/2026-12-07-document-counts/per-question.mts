// Context recall of every distinct candidate of a finished run on each question of a file, as the fidelity report
// evaluates them (same answerer, scorer, budget and evaluation cache), written as { candidateId: { itemKey: recall } }
// over the scored questions (those with gold evidence), keyed by content key (item-key.mts).
// It lets several validation sets rank one fixed pool of designs, with no search re-run (pool-analysis.mts).
// The file may hold several sets together: an item that is in several is evaluated once, and items that share an id
// but differ (another asked day or evidence) are evaluated each.
//   npx tsx bench/results/2026-12-07-document-counts/per-question.mts <run> <questions.jsonl> <out.json>
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openArchive } from '../../../src/archive/index.ts';
import { loadHistories } from '../../../src/history/load.ts';
import {
  evaluateCandidates,
  fidelityHistorySource,
  fidelityQuestions,
  scoredCandidates,
} from '../../../src/experiments/fidelity.ts';
import { contentKey, type KeyedItem } from './item-key.mts';

const [runDir, questionsFile, out] = process.argv.slice(2) as [string, string, string];
const dir = resolve(runDir);
const archive = openArchive(dir);
const histories = await loadHistories(fidelityHistorySource(archive));
// Evaluation keys a question by history and id, so each distinct item is evaluated under its content key as its id,
// from a copy of the file (one line per content key, the first).
const tmp = mkdtempSync(join(tmpdir(), 'per-question-'));
const keyed = new Map<string, string>();
for (const line of readFileSync(questionsFile, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const item = JSON.parse(line) as KeyedItem;
  const key = contentKey(item);
  if (!keyed.has(key)) keyed.set(key, JSON.stringify({ ...item, id: key }));
}
writeFileSync(join(tmp, 'questions.jsonl'), [...keyed.values()].map((l) => `${l}\n`).join(''));
let questions: ReturnType<typeof fidelityQuestions>;
try {
  questions = fidelityQuestions(histories, join(tmp, 'questions.jsonl'), []);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.stderr.write(`${keyed.size} distinct items, ${questions.length} on the run's histories\n`);
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
