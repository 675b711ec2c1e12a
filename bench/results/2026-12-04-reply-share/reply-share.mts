/**
 * How often a generated set and RHELM's own questions ask what the assistant said: the calibration report's
 * `replyAnswerShare` (answer words only in the assistant's halves of the evidence turns), development and held-out
 * personas apart, for a supervision file generated before the measure was in the report.
 *   npx tsx bench/results/2026-12-04-reply-share/reply-share.mts <supervision.jsonl>
 */
import { readFileSync } from 'node:fs';
import { DEV_SUBSETS } from '../../../src/experiments/dev-subsets.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { calibrate } from '../../../src/supervision/calibration.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: reply-share.mts <supervision.jsonl>');
const generated = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((l) => QAItemSchema.parse(JSON.parse(l)));
const histories = await loadHistories('rhelm:../shared/data/rhelm');
const report = calibrate(
  histories.map((h) => {
    const text = new Map(h.records.map((r) => [r.id, r.text]));
    const mine = generated.filter((q) => q.history === h.id);
    return { id: h.id, recordText: (id: string) => text.get(id), generated: mine, official: h.qa };
  }),
  (id) => (DEV_SUBSETS.rhelm!.includes(id) ? 'dev' : 'heldout'),
);
const pct = (x: number | null | undefined) => (x == null ? '—' : `${(x * 100).toFixed(1)}%`);
for (const [name, part] of [['dev', report.dev], ['held-out', report.heldout]] as const) {
  if (!part) continue;
  const g = part.generated;
  const o = part.official!;
  console.log(
    `${file} ${name}: generated ${pct(g.replyAnswerShare)} of ${g.replyAnswerItems}` +
      ` | official ${pct(o.replyAnswerShare)} of ${o.replyAnswerItems}`,
  );
}
