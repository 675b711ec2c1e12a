// Context recall per template of one design's traces on a supervision file (`memsteer eval --questions <file>
// --traces <traces.jsonl>`), document questions apart by how they name the document, and over the items whose
// evidence is document sections alone.
//   npx tsx bench/results/2026-12-07-document-counts/template-recall.mts <supervision.jsonl> <traces.jsonl>
import { readFileSync } from 'node:fs';

const [supervision, traces] = process.argv.slice(2) as [string, string];
const lines = (f: string): unknown[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
const items = new Map(
  (lines(supervision) as Array<{ id: string; question: string; evidence: Array<{ record: string }>; checks: { template: string } }>).map(
    (i) => [i.id, i],
  ),
);
// Chat turns are "<date>:<n>", e-mails "Emails_<date>…" in RHELM; anything else is a document section.
const isDocument = (record: string): boolean => !/^\d{4}-\d\d-\d\d:\d+$/.test(record) && !record.startsWith('Emails_');
const groups = new Map<string, number[]>();
const add = (g: string, r: number) => groups.set(g, [...(groups.get(g) ?? []), r]);
for (const t of lines(traces) as Array<{ question: string; scores: { contextRecall: number } | null }>) {
  const item = items.get(t.question);
  if (!item) continue;
  const r = t.scores?.contextRecall ?? 0;
  const tpl = item.checks.template;
  add(tpl.startsWith('section-') ? `${tpl}:${item.question.startsWith('In my ') ? 'described' : 'shared'}` : tpl, r);
  add('(all)', r);
  if (item.evidence.every((e) => isDocument(e.record))) add('(document sections alone)', r);
}
for (const [g, rs] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
  const recall = (100 * rs.reduce((a, x) => a + x, 0)) / rs.length;
  console.log(`${g.padEnd(30)} ${String(rs.length).padStart(4)} items  context recall ${recall.toFixed(1)}`);
}
