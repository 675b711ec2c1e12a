/**
 * Dated versus undated evaluation of the same questions, in one run: RHELM's official questions (919, each with a
 * question date) evaluated
 *   - undated:        dates dropped, one memory per persona over every record (8 builds);
 *   - dated:          dates kept, one pass over each persona's history (store, then `add` up to each date);
 *   - dated, rebuild: dates kept, `replay: 'groups'`: memory rebuilt with `store` for every date group (the protocol
 *                     before one-pass replay; skip with --no-rebuild).
 * Full pipeline (offline extractive answerer and scoring on the host), as `memsteer eval` runs it. Each mode gets a
 * fresh pool (no bm25 index cached from another mode), warmed on a small unrelated history first. The dated modes
 * must give the same traces (ranked and delivered units, context, answer) for the design; mismatches are counted.
 *
 *   npx tsx bench/dated-eval.ts [--design seeds/base-bm25.ts] [--history rhelm:../shared/data/rhelm] [--jobs N] [--no-rebuild]
 *
 * Not part of `npm test`.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram } from '../src/evaluate/evaluate.ts';
import { loadHistories } from '../src/history/load.ts';
import type { QAItem } from '../src/history/record.ts';
import { args, flag } from './args.ts';
import { compileBenchDesign, warmHistory, warmQuestions as warmQuestionsFor } from './warm-up.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';

const DESIGN = resolve(flag('design', 'seeds/base-bm25.ts'));
const HISTORY = flag('history', `rhelm:${resolve('../shared/data/rhelm')}`);
const JOBS = Number(flag('jobs', String(availableParallelism())));
const REBUILD = !args.includes('--no-rebuild');
const BUDGET = { tokens: 1000 };

const program = await compileBenchDesign(DESIGN);
const histories = await loadHistories(HISTORY);
const dated: QAItem[] = histories.flatMap((h) => h.qa);
const undated: QAItem[] = dated.map(({ date: _date, ...q }) => q);
const warmQuestions = warmQuestionsFor(['What is the puppy called?', 'What bike was bought?'], ['2023-09-01', '2023-06-01']);

type Mode = 'undated' | 'dated' | 'dated, rebuild';
async function measure(mode: Mode): Promise<{ ms: number; traces: QuestionTrace[]; groups: number; storeMs: number }> {
  const pool = createEvalPool({ size: JOBS });
  try {
    const scorer = evalScorerFrom(null);
    const common = {
      program,
      budget: BUDGET,
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
      replay: mode === 'dated, rebuild' ? ('groups' as const) : ('timeline' as const),
    };
    await evaluateProgram({ ...common, histories: [warmHistory], questions: warmQuestions });
    const t = performance.now();
    const r = await evaluateProgram({ ...common, histories, questions: mode === 'undated' ? undated : dated });
    const ms = performance.now() - t;
    const failed = r.traces.filter((x) => x.error).length;
    if (failed) throw new Error(`${mode}: ${failed} questions failed, e.g. ${JSON.stringify(r.traces.find((x) => x.error)!.error)}`);
    return { ms, traces: r.traces, groups: r.stats.groups, storeMs: r.stats.phaseMs.store };
  } finally {
    await pool.close();
  }
}

const modes: Mode[] = REBUILD ? ['dated', 'undated', 'dated, rebuild'] : ['dated', 'undated'];
const got = new Map<Mode, Awaited<ReturnType<typeof measure>>>();
for (const mode of modes) got.set(mode, await measure(mode));

const base = got.get('undated')!.ms;
console.log(`design ${DESIGN.replace(`${process.cwd()}/`, '')}; ${HISTORY}: ${histories.length} histories, ${dated.length} questions`);
console.log(`pool of ${JOBS} processes; machine parallelism ${availableParallelism()}; budget ${BUDGET.tokens} tokens`);
console.log('| mode | memory builds (groups) | wall | vs undated | store, summed over groups |');
console.log('| --- | --- | --- | --- | --- |');
for (const [mode, r] of got) {
  console.log(
    `| ${mode} | ${r.groups} | ${(r.ms / 1000).toFixed(1)} s | ${(r.ms / base).toFixed(2)}× | ${(r.storeMs / 1000).toFixed(1)} s |`,
  );
}
if (got.has('dated, rebuild')) {
  const view = (t: QuestionTrace) => JSON.stringify([t.ranked, t.delivered, t.contextText, t.answer]);
  const a = got.get('dated')!.traces;
  const b = got.get('dated, rebuild')!.traces;
  const differ = a.filter((t, i) => view(t) !== view(b[i]!)).length;
  console.log(`one pass vs rebuild: ${a.length - differ} of ${a.length} traces identical (ranked, delivered, context, answer)`);
}
