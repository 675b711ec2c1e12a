/**
 * How well can the extractive reader answer LoCoMo when it is handed exactly the gold evidence turns (ORACLE
 * context)? An upper bound for offline answering: retrieval cannot do better than oracle evidence.
 *
 *   npx tsx bench/oracle-reader.ts [path/to/locomo10.json] [--show N] [--cat C] [--min-coverage X]
 *
 * A calibration script: it reads only the development conversations (DEV_SUBSETS.locomo, see the README's
 * "Development subsets"); the held-out ones are never looked at while tuning the reader.
 * Context lines are written the way the seeds write them: `[8 May 2023 13:56] Ana: text`.
 * Reads the raw LoCoMo JSON itself so the number does not depend on the loader.
 */
import { readFileSync } from 'node:fs';
import { DEV_SUBSETS } from '../src/experiments/dev-subsets.ts';
import { answersMatch } from '../src/scoring/answer-match.ts';
import { extractiveAnswer } from '../src/scoring/extractive-reader.ts';
import { locomoScore } from '../src/scoring/locomo-f1.ts';
import { tokenF1 } from '../src/scoring/metrics.ts';
import { findDates, formatDate } from '../src/text/date-parse.ts';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Qa {
  question: string;
  answer?: string | number;
  adversarial_answer?: string;
  evidence: string[];
  category: number;
}
interface Sample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^[\d.]+$/.test(a)) ?? '/work/shared/data/locomo/locomo10.json';
const showIdx = args.indexOf('--show');
const show = showIdx >= 0 ? Number(args[showIdx + 1]) : 0;
const catIdx = args.indexOf('--cat');
const onlyCat = catIdx >= 0 ? Number(args[catIdx + 1]) : undefined;

const num = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const readerOptions = {
  ...(num('--min-coverage') !== undefined ? { minCoverage: num('--min-coverage')! } : {}),
};

const dev = new Set<string>(DEV_SUBSETS.locomo);
const data = (JSON.parse(readFileSync(file, 'utf8')) as Sample[]).filter((s) => dev.has(s.sample_id));
if (data.length === 0) throw new Error(`${file} holds none of the development conversations ${[...dev].join(', ')}`);

function stamp(dateTime: string): string {
  const d = findDates(dateTime)[0];
  const time = /(\d{1,2}):(\d{2})\s*(am|pm)/i.exec(dateTime);
  let hm = '';
  if (time) {
    let h = Number(time[1]) % 12;
    if (time[3]!.toLowerCase() === 'pm') h += 12;
    hm = ` ${String(h).padStart(2, '0')}:${time[2]}`;
  }
  return d ? `${formatDate(d.date)}${hm}` : dateTime;
}

type Acc = { n: number; locomo: number; f1: number; correct: number };
const byCat = new Map<number, Acc>();
const shown: string[] = [];

for (const sample of data) {
  const conv = sample.conversation;
  const turns = new Map<string, string>();
  for (const key of Object.keys(conv)) {
    const m = /^session_(\d+)$/.exec(key);
    if (!m || !Array.isArray(conv[key])) continue;
    const when = stamp(String(conv[`session_${m[1]}_date_time`] ?? ''));
    for (const t of conv[key] as Turn[]) {
      const caption = t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : '';
      turns.set(t.dia_id, `[${when}] ${t.speaker}: ${t.text}${caption}`);
    }
  }
  for (const qa of sample.qa) {
    if (onlyCat !== undefined && qa.category !== onlyCat) continue;
    const ids = qa.evidence
      .flatMap((e) => e.split(/[;\s]+/))
      .map((e) => e.trim())
      .filter(Boolean);
    const lines = [...new Set(ids)].map((id) => turns.get(id)).filter((x): x is string => !!x);
    const context = lines.join('\n');
    const gold = qa.category === 5 ? 'Not mentioned' : String(qa.answer ?? '');
    const { answer } = extractiveAnswer(qa.question, context, readerOptions);
    const locomo = locomoScore(answer, gold, qa.category);
    const f1 = tokenF1(answer, qa.category === 3 ? gold.split(';')[0]! : gold);
    const correct = qa.category === 5 ? locomo === 1 : answersMatch(answer, gold, 'text') || f1 >= 0.5;
    const acc = byCat.get(qa.category) ?? { n: 0, locomo: 0, f1: 0, correct: 0 };
    acc.n++;
    acc.locomo += locomo;
    acc.f1 += f1;
    acc.correct += correct ? 1 : 0;
    byCat.set(qa.category, acc);
    if (shown.length < show && byCat.get(qa.category)!.n % 7 === 0)
      shown.push(
        `[${qa.category}] ${qa.question}\n   gold: ${gold}\n   read: ${answer}   (LoCoMo F1 ${locomo.toFixed(2)})\n` +
          `   ctx: ${context.slice(0, 300).replace(/\n/g, ' | ')}`,
      );
  }
}

const fmt = (x: number) => x.toFixed(3);
const total: Acc = { n: 0, locomo: 0, f1: 0, correct: 0 };
const rows: string[] = ['category  n     LoCoMo-F1  SQuAD-F1  accuracy(exact|F1>=0.5)'];
for (const cat of [...byCat.keys()].sort()) {
  const a = byCat.get(cat)!;
  rows.push(`${cat}         ${String(a.n).padEnd(5)} ${fmt(a.locomo / a.n)}      ${fmt(a.f1 / a.n)}     ${fmt(a.correct / a.n)}`);
  if (cat <= 4) {
    total.n += a.n;
    total.locomo += a.locomo;
    total.f1 += a.f1;
    total.correct += a.correct;
  }
}
if (total.n)
  rows.push(
    `1-4       ${String(total.n).padEnd(5)} ${fmt(total.locomo / total.n)}      ` +
      `${fmt(total.f1 / total.n)}     ${fmt(total.correct / total.n)}`,
  );
process.stdout.write(`${shown.join('\n')}\n${rows.join('\n')}\n`);
