// How much of a set's difficulty is the questions' voice: the calibration of a generated RHELM set as generated
// (the user's voice, rule-based@26) and with every question read back in the third person ("the user", "the
// assistant"; voice.ts's aboutUser). Nothing else changes. Usage: npx tsx voice-effect.mts <set.jsonl> <rhelm folder>
import { readFileSync } from 'node:fs';
import { calibrationReport, seedContextRecall } from '../../../src/experiments/calibration-report.ts';
import { loadHistories } from '../../../src/history/load.ts';
import { QAItemSchema } from '../../../src/history/record.ts';
import { aboutUser } from '../../../src/supervision/rule-based/voice.ts';

const items = readFileSync(process.argv[2]!, 'utf8')
  .trim()
  .split('\n')
  .map((l) => QAItemSchema.parse(JSON.parse(l)));
const histories = await loadHistories(`rhelm:${process.argv[3]}`);
const third = items.map((i) => ({ ...i, question: aboutUser(i.question) }));
const out: Record<string, unknown> = { changed: third.filter((t, k) => t.question !== items[k]!.question).length };
for (const [name, set] of [
  ['userVoice', items],
  ['thirdPerson', third],
] as const) {
  const r = calibrationReport(histories, set, await seedContextRecall(histories, set, 2));
  out[name] = Object.fromEntries(
    (['dev', 'heldout'] as const).map((p) => [p, { gap: r[p].seed.gap, gapAll: r[p].seed.gapAll, val: r[p].seed.generatedVal }]),
  );
}
console.log(JSON.stringify(out));
