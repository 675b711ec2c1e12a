/**
 * A probe, not a move: refits a design's learned-ranking weights on the ranking that reaches `learnedRank` (the design
 * run with LTR_WEIGHTS = [1, 0, 0, 0, 0, 0], which keeps the incoming order), fitted on the training items of one group
 * of RHELM personas (the development ones, or the held-out ones), and writes the refitted design.
 *   npx tsx bench/results/2026-12-04-record-fusion/refit-ranking.mts <supervision.jsonl> <identity-traces.jsonl> \
 *     <design.ts> <out.ts> dev|held
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEV_SUBSETS } from '../../../src/experiments/dev-subsets.ts';
import { loadHistories } from '../../../src/history/load.ts';
import type { QAItem } from '../../../src/history/record.ts';
import { fitRanking, rankingExamples, rankingObjective } from '../../../src/optimize/proposers/rank-fitting.ts';

const [supervision, traces, design, out, group] = process.argv.slice(2);
if (!supervision || !traces || !design || !out || (group !== 'dev' && group !== 'held')) {
  throw new Error('usage: refit-ranking.mts <supervision.jsonl> <identity-traces.jsonl> <design.ts> <out.ts> dev|held');
}
const dev = new Set<string>(DEV_SUBSETS.rhelm);
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
const items = lines(supervision)
  .map((l) => JSON.parse(l) as QAItem)
  .filter((q) => q.split === 'train' && dev.has(q.history) === (group === 'dev'));
const ranked = new Map<string, { rankedRecords: string[]; budgetRecords?: string[] }>();
for (const l of lines(traces)) {
  const t = JSON.parse(l);
  ranked.set(`${t.history}/${t.question}`, t);
}
const records = new Map((await loadHistories('rhelm:../shared/data/rhelm')).map((h) => [h.id, h.records]));
const examples = rankingExamples({
  items,
  records: (h) => records.get(h) ?? [],
  ranked: (h, q) => ranked.get(`${h}/${q}`)?.rankedRecords,
  budgetDepth: (h, q) => ranked.get(`${h}/${q}`)?.budgetRecords?.length,
});
const source = readFileSync(design, 'utf8');
const current = JSON.parse(/^const LTR_WEIGHTS = (\[.*\]);/m.exec(source)?.[1] ?? '[]') as number[];
const fromOrder = fitRanking(examples);
const fromCurrent = fitRanking(examples, current);
const now = rankingObjective(examples, current);
console.log(`${group}: ${examples.length} training questions; current weights [${current}] ${now.toFixed(4)}`);
console.log(`  refit from the incoming order [${fromOrder.weights}] ${fromOrder.before.toFixed(4)} → ${fromOrder.after.toFixed(4)}`);
console.log(`  refit from the current weights [${fromCurrent.weights}] ${fromCurrent.before.toFixed(4)} → ${fromCurrent.after.toFixed(4)}`);
const best = fromOrder.after >= fromCurrent.after ? fromOrder : fromCurrent;
writeFileSync(out, source.replace(/^const LTR_WEIGHTS = \[.*\];/m, `const LTR_WEIGHTS = [${best.weights.join(', ')}];`));
