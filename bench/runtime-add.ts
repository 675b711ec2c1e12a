/**
 * `createMemory().add` of 1,000 records one at a time versus one `add` of all of them, for a design with an `add`
 * stage (default seeds/base-bm25.ts), sandboxed, in one run. Records are the first LoCoMo turns.
 *
 *   npx tsx bench/runtime-add.ts [--design seeds/base-bm25.ts] [--records 1000] [--rounds 3]
 *
 * Each round opens two fresh memories (opening is not timed) and alternates which mode runs first. Both memories
 * must answer a few questions identically. The process-wide BM25 cache is cleared before each timed part, so
 * neither mode reuses an index an earlier round built (an app's records are new each time). Cost is shown as wall
 * time and as the process's CPU time (host and isolate threads): on a shared machine the CPU ratio is the steadier
 * figure. Not part of `npm test`.
 */
import { resolve } from 'node:path';
import type { SourceRecord } from '../sandbox/contract.ts';
import { loadHistories } from '../src/history/load.ts';
import { createMemory } from '../src/runtime/create-memory.ts';
import { clearBm25Cache } from '../src/isolate/host-tools/bm25-index.ts';
import { flag } from './args.ts';

const DESIGN = resolve(flag('design', 'seeds/base-bm25.ts'));
const N = Number(flag('records', '1000'));
const ROUNDS = Number(flag('rounds', '3'));

const histories = await loadHistories(`locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
// Turn ids repeat across conversations ("D1:1"): prefix the conversation.
const records: SourceRecord[] = histories.flatMap((h) => h.records.map((r) => ({ ...r, id: `${h.id}/${r.id}` }))).slice(0, N);
const questions = histories[0]!.qa.slice(0, 20).map((q) => q.question);

interface Timed {
  ms: number;
  cpuMs: number;
  answers: string[];
}

/** Runs `fn`, timing wall and process CPU time from a cleared BM25 cache. */
async function timed(fn: () => Promise<void>): Promise<{ ms: number; cpuMs: number }> {
  clearBm25Cache();
  const cpu = process.cpuUsage();
  const t = performance.now();
  await fn();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

async function batch(): Promise<Timed> {
  const memory = await createMemory({ design: DESIGN });
  const { ms, cpuMs } = await timed(() => memory.add(records).then(() => undefined));
  const answers = [];
  for (const q of questions) answers.push(JSON.stringify(await memory.search(q)));
  await memory.close();
  return { ms, cpuMs, answers };
}

async function single(): Promise<Timed> {
  const memory = await createMemory({ design: DESIGN });
  const { ms, cpuMs } = await timed(async () => {
    for (const r of records) await memory.add([r]);
  });
  const answers = [];
  for (const q of questions) answers.push(JSON.stringify(await memory.search(q)));
  await memory.close();
  return { ms, cpuMs, answers };
}

await batch(); // warm-up: module loading, JIT, type checker of the compile step
await single();
const rows: Array<{ round: number; b: Timed; s: Timed }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const first = round % 2 === 1 ? await batch() : await single();
  const second = round % 2 === 1 ? await single() : await batch();
  const [b, s] = round % 2 === 1 ? [first, second] : [second, first];
  if (b.answers.join('\n') !== s.answers.join('\n')) throw new Error('one-at-a-time and batch memories answer differently');
  rows.push({ round, b, s });
}
const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wall = median(rows.map((r) => r.s.ms / r.b.ms));
const cpu = median(rows.map((r) => r.s.cpuMs / r.b.cpuMs));
console.log(`createMemory().add, ${DESIGN.replace(`${process.cwd()}/`, '')}, ${records.length} LoCoMo records, sandboxed`);
console.log('| round | one add of all (wall / CPU) | one record at a time (wall / CPU) | ratio wall | ratio CPU |');
console.log('| --- | --- | --- | --- | --- |');
const ms = (x: number): string => `${x.toFixed(0)} ms`;
for (const { round, b, s } of rows) {
  const ratios = `${(s.ms / b.ms).toFixed(2)}× | ${(s.cpuMs / b.cpuMs).toFixed(2)}×`;
  console.log(`| ${round} | ${ms(b.ms)} / ${ms(b.cpuMs)} | ${ms(s.ms)} / ${ms(s.cpuMs)} | ${ratios} |`);
}
console.log(`median ratio: wall ${wall.toFixed(2)}×, CPU ${cpu.toFixed(2)}× (target ≤ 3×); same answers to ${questions.length} questions`);
