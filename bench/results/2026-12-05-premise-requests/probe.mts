// Per template, on the development personas only: items and Base-BM25 context recall of a generated set, next to the
// personas' own questions per category. Usage: npx tsx probe.mts <set.jsonl> <rhelm dir>
import { readFileSync } from 'node:fs';
import { seedContextRecall } from '../../../src/experiments/calibration-report.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { seedKey } from '../../../src/supervision/calibration.ts';

const [set, dir] = process.argv.slice(2);
const DEV = ['Jonas_Richter', 'Justice_Arvind_Prakash_Mehra'];
const histories = (await loadHistories(`rhelm:${dir}`)).filter((h) => DEV.includes(h.id));
const items = readFileSync(set!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => QAItemSchema.parse(JSON.parse(l)))
  .filter((i) => DEV.includes(i.history));
const seed = await seedContextRecall(histories, items, 2);
const rows = new Map<string, { n: number; recall: number; multi: number }>();
const add = (key: string, q: { history: string; id: string; evidence: unknown[] }) => {
  const r = rows.get(key) ?? { n: 0, recall: 0, multi: 0 };
  r.n++;
  r.recall += seed.contextRecall.get(seedKey(q)) ?? 0;
  if (q.evidence.length > 1) r.multi++;
  rows.set(key, r);
};
for (const it of items) add(`generated ${String((it.checks as Record<string, unknown>)?.template)}`, it);
for (const h of histories) for (const q of h.qa) if (q.evidence.length) add(`official ${q.category}`, { ...q, history: h.id });
const total = (side: string) => [...rows].filter(([k]) => k.startsWith(side)).reduce((x, [, r]) => x + r.n, 0);
const out = [...rows]
  .sort(([a, x], [b, y]) => a.split(' ')[0]!.localeCompare(b.split(' ')[0]!) || y.n - x.n)
  .map(([key, r]) => ({
    key,
    items: r.n,
    share: Number((r.n / total(key.split(' ')[0]!)).toFixed(3)),
    multiEvidence: r.multi,
    baseBm25ContextRecall: Number((r.recall / r.n).toFixed(3)),
  }));
console.log(JSON.stringify({ set, histories: DEV, rows: out }, null, 1));
