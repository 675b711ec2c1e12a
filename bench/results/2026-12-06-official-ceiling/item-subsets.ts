/**
 * What-if over a finished run: how the validation–official τ-b by context recall would change if validation had other
 * items. Every candidate of the run was evaluated on every generated item (training and validation, `memsteer eval
 * --questions <supervision> --traces <dir>/<id>.jsonl`); the candidates are then ranked by their mean context recall
 * over a subset of items (a template or a question type left out, only short evidence, a random subset of a size)
 * against their official context recall from the run's fidelity.json. The search itself is not re-run: a different
 * validation set would have steered it to other candidates, so these figures say which items rank the same
 * candidates alike, not what another generator would reach.
 *
 *   npx tsx bench/results/2026-12-06-official-ceiling/item-subsets.ts <run dir> <traces dir>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { FidelityReportSchema } from '../../../src/experiments/fidelity-schema.ts';
import { kendallTauB } from '../../../src/experiments/fidelity-stats.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { QuestionTraceSchema } from '../../../src/scoring/trace-schema.ts';
import { readJsonl } from '../../../src/util/jsonl.ts';
import { createRng } from '../../../src/util/rng.ts';

const [runDir, tracesDir] = process.argv.slice(2);
if (!runDir || !tracesDir) throw new Error('usage: item-subsets.ts <run dir> <traces dir>');
const fidelity = FidelityReportSchema.parse(JSON.parse(readFileSync(join(runDir, 'fidelity.json'), 'utf8')));
const ManifestSchema = z.object({ config: z.object({ supervision: z.string() }) });
const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')));
const items = readJsonl(manifest.config.supervision, QAItemSchema);
const candidates = fidelity.candidates.filter((c) => c.sameAs === null && c.official?.contextRecall != null);
const official = candidates.map((c) => c.official!.contextRecall!);
const recall = candidates.map((c) => {
  const m = new Map<string, number>();
  for (const t of readJsonl(join(tracesDir, `${c.id}.jsonl`), QuestionTraceSchema)) m.set(t.question, t.scores.contextRecall);
  return m;
});
const tau = (ids: readonly string[]): number | null =>
  kendallTauB(
    recall.map((m) => ids.reduce((s, id) => s + m.get(id)!, 0) / ids.length),
    official,
  );
const templateOf = (q: (typeof items)[number]): string => {
  const t = q.checks?.template;
  return typeof t === 'string' ? t : (q.category ?? 'unknown');
};
const records = (q: (typeof items)[number]) => new Set(q.evidence.map((e) => e.record)).size;

type Item = (typeof items)[number];
const subsets: Array<[string, (q: Item) => boolean]> = [
  ['all items', () => true],
  ['validation split (what the run used)', (q) => q.split === 'val'],
  ['training split', (q) => q.split === 'train'],
  ['without temporal', (q) => q.category !== 'temporal'],
  ['without aggregation', (q) => q.category !== 'aggregation'],
  ['without temporal and aggregation', (q) => q.category !== 'temporal' && q.category !== 'aggregation'],
  ['evidence in at most 2 records', (q) => records(q) <= 2],
  ['evidence in 1 record', (q) => records(q) === 1],
  ...['single-hop', 'multi-hop', 'temporal', 'aggregation', 'false-premise'].map(
    (c) => [`only ${c}`, (q: Item) => q.category === c] as [string, (q: Item) => boolean],
  ),
];
const rows: Array<{ subset: string; items: number; kendallTauB: number | null }> = [];
for (const [name, keep] of subsets) {
  const ids = items.filter(keep).map((q) => q.id);
  if (ids.length >= 5) rows.push({ subset: name, items: ids.length, kendallTauB: tau(ids) });
}
// Random subsets of the whole set by size: how much of the agreement a larger validation set would add.
const rng = createRng(1);
const all = items.map((q) => q.id);
const bySize = [100, 160, 240, 320].filter((n) => n < all.length).map((size) => {
  const taus = Array.from({ length: 200 }, () => tau(rng.shuffle(all).slice(0, size))).filter((t): t is number => t !== null);
  return { size, draws: taus.length, meanTauB: taus.reduce((a, b) => a + b, 0) / taus.length };
});
const byTemplate = [...new Set(items.map(templateOf))]
  .map((t) => ({ template: t, ids: items.filter((q) => templateOf(q) === t).map((q) => q.id) }))
  .filter((g) => g.ids.length >= 10)
  .map((g) => ({
    template: g.template,
    items: g.ids.length,
    kendallTauB: tau(g.ids),
    withoutIt: tau(items.filter((q) => templateOf(q) !== g.template).map((q) => q.id)),
  }))
  .sort((a, b) => b.items - a.items);
const out = { run: fidelity.run, candidates: candidates.length, subsets: rows, bySize, byTemplate };
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
