/**
 * How hard generated supervision is for plain lexical retrieval: offline-generates questions for each history,
 * then ranks the history's records with a plain BM25 (stemmed, stopwords dropped; src/isolate/host-tools'
 * buildBm25Index) for each question and reports mean evidence recall@10 per question type, beside the same
 * number for the history's official questions. Supervision whose questions name their record's rare words
 * scores ≈ 1.0 and steers design search toward nothing; official LoCoMo questions score ≈ 0.5–0.6.
 *
 *   npx tsx bench/supervision-difficulty.ts [source …] [--n 400] [--samples 6]
 */
import type { QAItem } from '../src/history/record.ts';
import { loadHistoriesSync } from '../src/history/load.ts';
import { buildBm25Index } from '../src/isolate/host-tools/bm25-index.ts';
import { generateSupervision } from '../src/supervision/generate.ts';

const args = process.argv.slice(2);
const flag = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  args.splice(i, 2);
  return v;
};
const n = flag('--n', 400);
const samples = flag('--samples', 0);
const sources = args.length
  ? args
  : [
      'locomo:../shared/data/locomo/locomo10.json#conv-26',
      'locomo:../shared/data/locomo/locomo10.json#conv-41',
      'rhelm:../shared/data/rhelm#Elena_Morales',
    ];

function recallAt(
  items: readonly QAItem[],
  search: (q: string) => string[],
  key: (it: QAItem) => string = (it) => String(it.category ?? 'unknown'),
): Map<string, { n: number; r: number }> {
  const out = new Map<string, { n: number; r: number }>();
  for (const it of items) {
    const gold = [...new Set(it.evidence.map((e) => e.record))];
    if (!gold.length) continue;
    const top = new Set(search(it.question));
    const r = gold.filter((g) => top.has(g)).length / gold.length;
    for (const k of [key(it), 'all']) {
      const s = out.get(k) ?? { n: 0, r: 0 };
      s.n++;
      s.r += r;
      out.set(k, s);
    }
  }
  return out;
}

const fmt = (m: Map<string, { n: number; r: number }>): string =>
  [...m].map(([k, v]) => `${k} ${(v.r / v.n).toFixed(2)} (n=${v.n})`).join(' · ');

for (const source of sources) {
  for (const history of loadHistoriesSync(source)) {
    const index = buildBm25Index(history.records.map((r) => ({ id: r.id, text: `${r.title ?? ''} ${r.text}` })));
    const search = (q: string): string[] => index.search(q, 10).map((h) => h.unit);
    const t0 = Date.now();
    const { items } = await generateSupervision(history, { mode: 'offline', n });
    const ms = Date.now() - t0;
    const templates = new Map<string, number>();
    for (const it of items) templates.set(String(it.checks?.template), (templates.get(String(it.checks?.template)) ?? 0) + 1);
    console.log(`\n${history.id}: ${history.records.length} records, ${items.length} items in ${(ms / 1000).toFixed(1)} s`);
    console.log(`  templates: ${[...templates].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    console.log(`  generated R@10: ${fmt(recallAt(items, search))}`);
    console.log(`  by template:    ${fmt(recallAt(items, search, (it) => String(it.checks?.template)))}`);
    const official = (history.qa ?? []).filter((q) => q.evidence.length);
    if (official.length) console.log(`  official  R@10: ${fmt(recallAt(official, search))}`);
    if (samples) {
      const byTemplate = new Map<string, QAItem[]>();
      for (const it of items) {
        const k = String(it.checks?.template);
        byTemplate.set(k, [...(byTemplate.get(k) ?? []), it]);
      }
      for (const [k, list] of byTemplate) {
        console.log(`  -- ${k}`);
        for (const it of list.slice(0, samples))
          console.log(`     ${it.question}  => ${it.answer}  [${it.evidence.map((e) => e.record).join(', ')}]`);
      }
    }
  }
}
