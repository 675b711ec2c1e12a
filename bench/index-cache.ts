/**
 * What the process-wide bm25 index cache saves.
 *   1. Host level: building the index a base-bm25 candidate asks for, per LoCoMo conversation, with the cache
 *      cleared before every build (cold) vs served from the cache (warm).
 *   2. Pool level: the same design evaluated twice in one pool (the second time is every later candidate that
 *      indexes the same units): store time summed over groups, and cache hits.
 *
 *   npx tsx bench/index-cache.ts [--history locomo:…] [--repeats 5]
 *
 * Not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileDesign } from '../src/design/compile.ts';
import { evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalAnswerer } from '../src/evaluate/evaluate.ts';
import { bm25CacheStats, clearBm25Cache, createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import { loadHistories } from '../src/history/load.ts';
import { flag } from './args.ts';

const HISTORY = flag('history', `locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
const REPEATS = Number(flag('repeats', '5'));

const histories = await loadHistories(HISTORY);
const docsOf = (records: ReadonlyArray<{ id: string; text: string; speaker?: string; time?: string }>) =>
  records.map((r) => ({ id: r.id, text: `${r.time ? `[${r.time}] ` : ''}${r.speaker ? `${r.speaker}: ` : ''}${r.text}` }));

// 1. Host level.
const tools = createHostTools();
let cold = 0;
let warm = 0;
let builds = 0;
for (const h of histories) {
  const docs = docsOf(h.records);
  for (let i = 0; i < REPEATS; i++) {
    clearBm25Cache();
    let t = performance.now();
    tools.bm25Index(docs, { stem: true });
    cold += performance.now() - t;
    t = performance.now();
    tools.bm25Index(docs, { stem: true });
    warm += performance.now() - t;
    builds++;
  }
}
tools.dispose();
const docsTotal = histories.reduce((n, h) => n + h.records.length, 0);
console.log(`host: ${histories.length} histories (${docsTotal} records), ${REPEATS} builds each`);
console.log(`  cold build (cache cleared): ${(cold / builds).toFixed(1)} ms per index`);
console.log(`  warm (cache hit, incl. hashing the documents): ${(warm / builds).toFixed(2)} ms per index → ${(cold / warm).toFixed(0)}x`);

// 2. Pool level: the first evaluation builds every index in the children, the second finds them cached.
const source = readFileSync(resolve('seeds/base-bm25.ts'), 'utf8');
const compiled = await compileDesign(source, { fileName: 'base-bm25.ts' });
if (!compiled.ok) throw new Error('seeds/base-bm25.ts does not compile');
const questions = histories.flatMap((h) => h.qa).filter((q) => ['1', '2', '3', '4'].includes(q.category ?? ''));
const noAnswer: EvalAnswerer = { id: 'none', answer: async () => ({ answer: '' }) };
const pool = createEvalPool();
try {
  const scorer = evalScorerFrom(null);
  for (const label of ['first candidate (cold)', 'next candidate (warm)']) {
    const r = await evaluateProgram({
      program: compiled.program,
      histories,
      questions,
      budget: { tokens: 2000 },
      answerer: noAnswer,
      score: scorer.score,
      summarize: summarizeTraces,
      pool,
    });
    console.log(
      `pool, ${label}: store ${r.stats.phaseMs.store.toFixed(0)} ms summed over ${r.stats.groups} groups, ` +
        `bm25 cache hits ${r.stats.bm25CacheHits}/${r.stats.groups}, wall ${r.stats.ms.toFixed(0)} ms`,
    );
  }
  console.log(`(host-process cache stats, unused by the pool children: ${JSON.stringify(bm25CacheStats())})`);
} finally {
  await pool.close();
}
