// Which validation set ranks a fixed pool of designs like the official questions: each pool is a finished run's
// candidates, with their official context recall (its fidelity.json) and their recall on every item of the sets
// (per-question.mts). Prints τ-b against the official ranking per set, per generator (the sets' name before "-s"),
// by validation-set size (random subsets of every set's items together) and per template (alone, and all but it, also
// at a validation split's size). Items are keyed by content key (item-key.mts), as per-question.mts writes them.
//   npx tsx bench/results/2026-12-07-document-counts/pool-analysis.mts --pool <fidelity.json>,<per-question.json> …
//     --set <name>=<val.jsonl> …
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { kendallTauB } from '../../../src/experiments/fidelity-stats.ts';
import { createRng } from '../../../src/supervision/rng.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { readJsonl } from '../../../src/util/jsonl.ts';
import { contentKey } from './item-key.mts';

const { values } = parseArgs({ options: { pool: { type: 'string', multiple: true }, set: { type: 'string', multiple: true } } });
interface Pool {
  name: string;
  official: Map<string, number>;
  perItem: Record<string, Record<string, number>>;
}
const pools: Pool[] = (values.pool ?? []).map((p) => {
  const [fidelity, perQuestion] = p.split(',') as [string, string];
  const f = JSON.parse(readFileSync(fidelity, 'utf8')) as {
    run: string;
    candidates: Array<{ id: string; sameAs: string | null; official: { contextRecall: number } | null }>;
  };
  const official = new Map(
    f.candidates.flatMap((c) => (c.sameAs === null && c.official ? [[c.id, c.official.contextRecall] as const] : [])),
  );
  return { name: f.run.split('/').pop()!, official, perItem: JSON.parse(readFileSync(perQuestion, 'utf8')) };
});
const sets = new Map<string, string[]>();
const templateOf = new Map<string, string>();
for (const s of values.set ?? []) {
  const [name, file] = s.split('=') as [string, string];
  const ids: string[] = [];
  for (const item of readJsonl(file, QAItemSchema)) {
    const key = contentKey(item);
    ids.push(key);
    const t = String(item.checks?.template);
    // Document questions apart by how they name the document: by kind and month, or by the conversation that shared it.
    templateOf.set(key, t.startsWith('section-') ? `${t}:${item.question.startsWith('In my ') ? 'described' : 'shared'}` : t);
  }
  sets.set(name, ids);
}

/**
 * τ-b between the pool's official ranking and its ranking by mean recall over the scored items of `ids` (an item
 * without gold evidence is scored for no candidate, as the validation fitness leaves it out).
 */
function tau(pool: Pool, ids: readonly string[]): number {
  const cands = [...pool.official.keys()].filter((c) => pool.perItem[c]);
  const scored = ids.filter((q) => cands.every((c) => q in pool.perItem[c]!));
  // A per-question file made before content keys names items by id alone: it would match none.
  if (scored.length === 0) throw new Error(`${pool.name}: no item of a set is in its per-question file`);
  const val = cands.map((c) => scored.reduce((a, q) => a + pool.perItem[c]![q]!, 0) / scored.length);
  return kendallTauB(
    val,
    cands.map((c) => pool.official.get(c)!),
  )!;
}
const mean = (xs: readonly number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
/** One row: the mean τ-b over `draws` on each pool, and their mean. */
function row(label: string, draws: readonly (readonly string[])[]): string {
  const per = pools.map((p) => mean(draws.map((d) => tau(p, d))));
  return `${label.padEnd(34)} ${per.map((t, k) => `${pools[k]!.name} ${t.toFixed(2)}`).join('  ')}  mean ${mean(per).toFixed(2)}`;
}

console.log('τ-b against the official ranking, per validation set:');
const generators = new Map<string, string[]>();
for (const [name, ids] of sets) {
  console.log(row(`${name} (${ids.length} items)`, [ids]));
  const g = name.split('-s')[0]!;
  generators.set(g, [...(generators.get(g) ?? []), name]);
}
for (const [g, names] of generators) console.log(row(`${g}: mean over its sets`, names.map((n) => sets.get(n)!)));

const all = [...new Set([...sets.values()].flat())];
const rng = createRng('pool-analysis');
const sample = (ids: readonly string[], n: number): string[] => rng.shuffle([...ids]).slice(0, n);
console.log(`\nby size (random subsets of all ${all.length} items; mean over 20 draws):`);
for (const n of [160, 320, 640, 1000].filter((n) => n < all.length))
  console.log(
    row(
      `${n} items`,
      Array.from({ length: 20 }, () => sample(all, n)),
    ),
  );
console.log(row(`all ${all.length} items`, [all]));

/** About the items of one development validation split (two RHELM personas). */
const SPLIT = 320;
console.log(`\nper template: its own ranking, the ranking of every other item, and of ${SPLIT}-item subsets of those:`);
const byTemplate = new Map<string, string[]>();
for (const id of all) byTemplate.set(templateOf.get(id)!, [...(byTemplate.get(templateOf.get(id)!) ?? []), id]);
for (const [t, ids] of [...byTemplate].sort((a, b) => b[1].length - a[1].length)) {
  if (ids.length < 20) continue;
  const rest = all.filter((id) => templateOf.get(id) !== t);
  console.log(`${row(`${t} (${ids.length}) alone`, [ids])}\n${row(`  all but ${t}`, [rest])}`);
  // At a development validation split's size, so the change is not just fewer items.
  console.log(row(`  ${SPLIT} of all but ${t}`, Array.from({ length: 20 }, () => sample(rest, SPLIT))));
}
