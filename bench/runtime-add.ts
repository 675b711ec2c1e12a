/**
 * `createMemory().add` of 1,000 records one at a time versus one `add` of all of them, for a design with an `add`
 * stage (default seeds/base-bm25.ts), sandboxed, in one run. Records are the first LoCoMo turns.
 *
 *   npx tsx bench/runtime-add.ts [--design seeds/base-bm25.ts] [--records 1000] [--rounds 3]
 *
 * Each round opens two fresh memories (opening is not timed) and alternates which mode runs first. Both memories
 * must answer a few questions identically. Not part of `npm test`.
 */
import { resolve } from 'node:path';
import type { SourceRecord } from '../sandbox/contract.ts';
import { loadHistories } from '../src/history/load.ts';
import { createMemory } from '../src/runtime/create-memory.ts';
import { flag } from './args.ts';

const DESIGN = resolve(flag('design', 'seeds/base-bm25.ts'));
const N = Number(flag('records', '1000'));
const ROUNDS = Number(flag('rounds', '3'));

const histories = await loadHistories(`locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
// Turn ids repeat across conversations ("D1:1"): prefix the conversation.
const records: SourceRecord[] = histories.flatMap((h) => h.records.map((r) => ({ ...r, id: `${h.id}/${r.id}` }))).slice(0, N);
const questions = histories[0]!.qa.slice(0, 20).map((q) => q.question);

async function batch(): Promise<{ ms: number; answers: string[] }> {
  const memory = await createMemory({ design: DESIGN });
  const t = performance.now();
  await memory.add(records);
  const ms = performance.now() - t;
  const answers = [];
  for (const q of questions) answers.push(JSON.stringify(await memory.search(q)));
  await memory.close();
  return { ms, answers };
}

async function single(): Promise<{ ms: number; answers: string[] }> {
  const memory = await createMemory({ design: DESIGN });
  const t = performance.now();
  for (const r of records) await memory.add([r]);
  const ms = performance.now() - t;
  const answers = [];
  for (const q of questions) answers.push(JSON.stringify(await memory.search(q)));
  await memory.close();
  return { ms, answers };
}

await batch(); // warm-up: module loading, JIT, type checker of the compile step
const rows: Array<{ round: number; batch: number; single: number; ratio: number }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const first = round % 2 === 1 ? await batch() : await single();
  const second = round % 2 === 1 ? await single() : await batch();
  const [b, s] = round % 2 === 1 ? [first, second] : [second, first];
  if (b.answers.join('\n') !== s.answers.join('\n')) throw new Error('one-at-a-time and batch memories answer differently');
  rows.push({ round, batch: b.ms, single: s.ms, ratio: s.ms / b.ms });
}
console.log(`createMemory().add, ${DESIGN.replace(`${process.cwd()}/`, '')}, ${records.length} LoCoMo records, sandboxed`);
console.log('| round | one add of all | one record at a time | ratio |');
console.log('| --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.round} | ${r.batch.toFixed(0)} ms | ${r.single.toFixed(0)} ms | ${r.ratio.toFixed(2)}× |`);
const median = rows.map((r) => r.ratio).sort((a, b) => a - b)[Math.floor(rows.length / 2)]!;
console.log(`median ratio ${median.toFixed(2)}× (target ≤ 3×); same answers to ${questions.length} questions`);
