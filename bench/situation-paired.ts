/**
 * The paired effect of placing questions in their day (src/supervision/rule-based/situation.ts): the situated items
 * of a generated set, scored by a design as generated and again with the question they were before (same evidence,
 * same answers), development and held-out histories apart, by kind of placement.
 *
 *   npx tsx bench/situation-paired.ts <supervision.jsonl> <out.json> [--history rhelm:../shared/data/rhelm]
 *     [--design seeds/base-bm25.ts]
 *
 * A situated item keeps `checks.unsituatedQuestion`; nothing else is read from the set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEvalCommand } from '../src/cli/commands/eval.ts';
import { historySplit } from '../src/experiments/dev-subsets.ts';
import { type QAItem, QAItemSchema } from '../src/history/record.ts';
import { QuestionTraceSchema } from '../src/scoring/trace-schema.ts';
import { namesDate } from '../src/supervision/calibration.ts';
import { readJsonl, writeJsonl } from '../src/util/jsonl.ts';
import { writeFileAtomic } from '../src/util/atomic-write.ts';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1]!;
  args.splice(i, 2);
  return v;
};
const history = flag('--history', 'rhelm:../shared/data/rhelm');
const design = flag('--design', 'seeds/base-bm25.ts');
const [input, output] = args;
if (!input || !output) throw new Error('usage: npx tsx bench/situation-paired.ts <supervision.jsonl> <out.json>');

const KINDS = ['same-day-appended', 'in-place-of-date', 'beside-date', 'another-day'] as const;
/**
 * Appended to a question of the same day, in place of the date it named, beside the date it keeps, or another day
 * for a day asked for.
 */
const kindOf = (it: QAItem): (typeof KINDS)[number] =>
  it.answerType === 'date'
    ? 'another-day'
    : !namesDate(String(it.checks!.unsituatedQuestion))
      ? 'same-day-appended'
      : namesDate(it.question)
        ? 'beside-date'
        : 'in-place-of-date';

const situated = readJsonl(input, QAItemSchema).filter((it) => typeof it.checks?.unsituatedQuestion === 'string');
const dir = mkdtempSync(join(tmpdir(), 'memsteer-situation-paired-'));
const silent = { out: () => {}, err: () => {}, interactive: false };
const scores = new Map<string, Map<string, { contextRecall: number; recallAt10: number }>>();
for (const [version, items] of [
  ['situated', situated],
  ['before', situated.map((it) => ({ ...it, question: String(it.checks!.unsituatedQuestion) }))],
] as const) {
  const questions = join(dir, `${version}.jsonl`);
  const traces = join(dir, `traces-${version}.jsonl`);
  writeJsonl(questions, items, QAItemSchema);
  await runEvalCommand({ history, design, questions, traces, jobs: '2', json: true }, silent);
  const byId = new Map<string, { contextRecall: number; recallAt10: number }>();
  for (const t of readJsonl(traces, QuestionTraceSchema)) {
    if (t.scores) byId.set(t.question, { contextRecall: t.scores.contextRecall, recallAt10: t.scores.recallAt['10'] ?? 0 });
  }
  scores.set(version, byId);
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const out: Record<string, Record<string, unknown>> = {};
for (const part of ['dev', 'heldout'] as const) {
  out[part] = {};
  for (const kind of ['all', ...KINDS] as const) {
    const ids = situated
      .filter((it) => historySplit(it.history) === part && (kind === 'all' || kindOf(it) === kind))
      .map((it) => it.id)
      .filter((id) => scores.get('situated')!.has(id) && scores.get('before')!.has(id));
    const of = (version: string, key: 'contextRecall' | 'recallAt10') => mean(ids.map((id) => scores.get(version)!.get(id)![key]));
    out[part][kind] = {
      items: ids.length,
      contextRecall: { situated: of('situated', 'contextRecall'), before: of('before', 'contextRecall') },
      recallAt10: { situated: of('situated', 'recallAt10'), before: of('before', 'recallAt10') },
    };
  }
}
writeFileAtomic(output, `${JSON.stringify(out, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });
