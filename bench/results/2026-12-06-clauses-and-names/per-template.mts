/**
 * Base-BM25's context recall per template on the validation split of a generated RHELM set, for the named personas
 * (the development ones: Jonas_Richter, Justice_Arvind_Prakash_Mehra), next to their own questions grouped by what
 * their evidence is (a document's count, a document's section, another document question, no document), and the
 * section templates (section-order, section-count, and section-cell from `rule-based@34`) split by how they name the
 * document (by its title, by the conversation that shared it).
 *
 *   npx tsx bench/results/2026-12-06-clauses-and-names/per-template.mts <set.jsonl> Jonas_Richter Justice_Arvind_Prakash_Mehra
 */
import { loadHistoriesSync } from '../../../src/history/load.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { readJsonl } from '../../../src/util/jsonl.ts';
import { seedContextRecall } from '../../../src/experiments/calibration-report.ts';
import { seedKey } from '../../../src/supervision/calibration.ts';
const [set, ...who] = process.argv.slice(2);
const histories = loadHistoriesSync(`rhelm:${process.env.RHELM ?? '../shared/data/rhelm'}`).filter((h) => who.includes(h.id));
const items = readJsonl(set!, QAItemSchema).filter((q) => who.includes(q.history) && q.split === 'val');
const s = await seedContextRecall(histories, items);
const by = new Map<string, number[]>();
for (const q of items) {
  const t = String(q.checks?.template ?? q.category);
  const v = s.contextRecall.get(seedKey(q));
  if (v === undefined) continue;
  by.set(t, [...(by.get(t) ?? []), v]);
}
const off = histories.flatMap((h) => h.qa).map((q) => s.contextRecall.get(seedKey(q))).filter((v): v is number => v !== undefined);
const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
console.log('official', off.length, mean(off).toFixed(3), '| generated val', items.length, mean([...by.values()].flat()).toFixed(3));
const line = (t: string, v: number[]) => console.log(t.padEnd(26), String(v.length).padStart(4), mean(v).toFixed(3));
for (const [t, v] of [...by].sort((a, b) => b[1].length - a[1].length)) line(t, v);
const groups = new Map<string, number[]>();
for (const h of histories)
  for (const q of h.qa) {
    const v = s.contextRecall.get(seedKey(q));
    if (v === undefined) continue;
    const doc = q.evidence.some((e) => e.record.includes('_task_'));
    const kind = /how many/i.test(q.question) ? 'how-many' : /section/i.test(q.question) ? 'section' : 'other';
    const g = doc ? `official doc ${kind}` : 'official no doc';
    groups.set(g, [...(groups.get(g) ?? []), v]);
  }
for (const [t, v] of groups) line(t, v);
const forms = new Map<string, number[]>();
for (const q of items) {
  const t = String(q.checks?.template ?? q.category);
  if (!t.startsWith('section-')) continue;
  const v = s.contextRecall.get(seedKey(q));
  if (v === undefined) continue;
  const f = `${t} ${/^In my document “/.test(q.question) ? 'title' : 'shared'}`;
  forms.set(f, [...(forms.get(f) ?? []), v]);
}
for (const [t, v] of forms) line(t, v);
