/**
 * Building `tools.bm25` indexes over LoCoMo-like records, in one run:
 *   - wink:    the index as built before it could grow (wink-bm25-text-search; `buildWinkBm25Index`), 5k and 20k;
 *   - build:   the growing index built in one call (`buildBm25Index`), 5k / 20k / 80k;
 *   - grown:   the same documents added in 100 batches (`extend`), 5k / 20k / 80k.
 * Documents are base-bm25's unit texts ("[8 May 2023 13:56] Caroline: …") of LoCoMo's turns, repeated with new ids
 * (and a per-copy session number in the text) up to the size. Every index must answer 50 LoCoMo questions exactly
 * as wink does at 5k and 20k, and the grown index as the one-call build at every size.
 *
 *   npx tsx bench/bm25-growth.ts [--rounds 5]
 *
 * Rounds alternate the order of the contenders; the table reports the median of the rounds. Not part of `npm test`.
 */
import { resolve } from 'node:path';
import { loadHistories } from '../src/history/load.ts';
import { buildBm25Index, buildWinkBm25Index } from '../src/isolate/host-tools/bm25-index.ts';
import { flag } from './args.ts';

const ROUNDS = Number(flag('rounds', '5'));
const SIZES = [5_000, 20_000, 80_000];
const WINK_SIZES = new Set([5_000, 20_000]);

const histories = await loadHistories(`locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
// Turn ids repeat across conversations ("D1:1"): prefix the conversation.
const turns = histories.flatMap((h) => h.records.map((r) => ({ ...r, id: `${h.id}/${r.id}` })));
const questions = histories.flatMap((h) => h.qa.slice(0, 5)).map((q) => q.question);
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const stamp = (time: string | undefined): string => {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(time ?? '');
  return m ? `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]} ${m[1]}${m[4] ? ` ${m[4]}:${m[5]}` : ''}` : '';
};
function docs(n: number): Array<{ id: string; text: string }> {
  const out: Array<{ id: string; text: string }> = [];
  for (let i = 0; i < n; i++) {
    const t = turns[i % turns.length]!;
    const copy = Math.floor(i / turns.length);
    out.push({ id: `c${copy}/${t.id}`, text: `[${stamp(t.time)}] ${t.speaker ?? ''}: ${t.text} (session ${copy}-${t.thread ?? ''})` });
  }
  return out;
}

const time = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const r = fn();
  return [r, performance.now() - t];
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const results = new Map<string, number[]>();
const record = (key: string, ms: number) => results.set(key, [...(results.get(key) ?? []), ms]);
buildBm25Index(docs(2000)); // warm-up (JIT, stemmer cache is per word and process-wide: warmed for every contender alike)
buildWinkBm25Index(docs(2000));

for (let round = 1; round <= ROUNDS; round++) {
  for (const n of SIZES) {
    const d = docs(n);
    const contenders: Array<[string, () => { search(q: string, k: number): unknown }]> = [
      ['build', () => buildBm25Index(d)],
      [
        'grown',
        () => {
          const step = Math.ceil(n / 100);
          let index = buildBm25Index(d.slice(0, step));
          for (let at = step; at < n; at += step) index = index.extend(d.slice(at, at + step));
          return index;
        },
      ],
    ];
    if (WINK_SIZES.has(n)) contenders.push(['wink', () => buildWinkBm25Index(d)]);
    if (round % 2 === 0) contenders.reverse();
    const built = new Map<string, { search(q: string, k: number): unknown }>();
    for (const [name, fn] of contenders) {
      const [index, ms] = time(fn);
      record(`${name}:${n}`, ms);
      built.set(name, index);
    }
    for (const q of questions) {
      const reference = JSON.stringify(built.get('build')!.search(q, 50));
      if (JSON.stringify(built.get('grown')!.search(q, 50)) !== reference) throw new Error(`grown ≠ build at ${n}: ${q}`);
      if (built.has('wink') && JSON.stringify(built.get('wink')!.search(q, 50)) !== reference)
        throw new Error(`build ≠ wink at ${n}: ${q}`);
    }
  }
}

console.log(`bm25 index builds over LoCoMo-like records, median of ${ROUNDS} rounds (ms); same top-50 for ${questions.length} questions`);
console.log('| records | wink (before) | build | build / wink | grown in 100 adds | build ms per 1k records |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const n of SIZES) {
  const wink = results.get(`wink:${n}`);
  const build = median(results.get(`build:${n}`)!);
  const grown = median(results.get(`grown:${n}`)!);
  const w = wink ? median(wink) : null;
  const ratio = w === null ? '—' : `${(build / w).toFixed(2)}×`;
  console.log(
    `| ${n / 1000}k | ${w === null ? '—' : w.toFixed(0)} | ${build.toFixed(0)} | ${ratio} | ${grown.toFixed(0)} | ` +
      `${((build / n) * 1000).toFixed(1)} |`,
  );
}
