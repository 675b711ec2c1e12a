// Official R@10 per kind of record the evidence is in (an item citing two kinds counts half to each), on RHELM's
// development personas (--dev) or the held-out ones (default), from `memsteer eval` traces or, per arm, from a
// `memsteer compare` report's perQuestion scores.
// Usage, from the repository root: npx tsx bench/results/2026-12-04-thread-kinds/by-kind.mts [--dev] file...
import { readFileSync } from 'node:fs';
import { loadHistories } from '../../../src/history/index.ts';

const args = process.argv.slice(2);
const wantDev = args.includes('--dev');
const dev = new Set(['Jonas_Richter', 'Justice_Arvind_Prakash_Mehra']);
const kindOf = new Map<string, Map<string, number>>();
for (const h of await loadHistories('rhelm:../shared/data/rhelm')) {
  const byId = new Map(h.records.map((r) => [r.id, r]));
  for (const q of h.qa) {
    const m = new Map<string, number>();
    const ev = q.evidence ?? [];
    for (const e of ev) {
      const k = byId.get(e.record)?.kind ?? '?';
      m.set(k, (m.get(k) ?? 0) + 1 / ev.length);
    }
    kindOf.set(`${h.id}/${q.id}`, m);
  }
}
/** (history, question, R@10) rows of one traces file, or of each arm of a compare report. */
function sources(file: string): Array<[string, Array<[string, string, number]>]> {
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.json')) {
    const per = JSON.parse(text).perQuestion as Record<string, Record<string, number>>;
    return Object.entries(per).map(([arm, scores]) => [
      `${file} ${arm}`,
      Object.entries(scores).map(([id, v]) => [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1), v]),
    ]);
  }
  const rows = text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map((t): [string, string, number] => [t.history, t.question, t.scores?.recallAt?.['10']]);
  return [[file, rows]];
}

for (const [name, rows] of args.filter((a) => a !== '--dev').flatMap(sources)) {
  const s = new Map<string, [number, number]>();
  let total = 0;
  let n = 0;
  for (const [history, question, v] of rows) {
    if (dev.has(history) !== wantDev) continue;
    const kinds = kindOf.get(`${history}/${question}`);
    if (!kinds || kinds.size === 0 || typeof v !== 'number') continue;
    total += v;
    n++;
    for (const [k, w] of kinds) {
      const a = s.get(k) ?? [0, 0];
      a[0] += w * v;
      a[1] += w;
      s.set(k, a);
    }
  }
  const kinds = [...s].map(([k, [a, c]]) => `${k} ${((100 * a) / c).toFixed(1)}`).join(' | ');
  console.log(`${name}: R@10 ${((100 * total) / n).toFixed(1)} over ${n} questions | ${kinds}`);
}
