/**
 * Questions per second for one design (default seeds/base-bm25.ts) on LoCoMo, categories 1–4, in one run:
 *   - pool:       the real path: compiled design in isolated-vm isolates in the child-process pool;
 *   - in-process: the design module imported directly and called with the host tools in this process
 *                 (no isolate, no child process); everything else (grouping, answering, scoring) identical.
 * Two measurements each: the design's stages only (store + retrieve + context; the answerer is a no-op) and
 * the full pipeline (offline extractive answerer + scoring on the host).
 *
 *   npx tsx bench/eval-throughput.ts [--design seeds/base-bm25.ts] [--history locomo:…] [--jobs N] [--rounds 2]
 *
 * Every mode is warmed first on a small unrelated history (child start-up, module loading and JIT are not
 * throughput), and rounds alternate modes so machine load hits both alike. Not part of `npm test`.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MemoryDesign } from '../sandbox/contract.ts';
import { directSandboxFactory } from '../src/isolate/direct-sandbox.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { runGroup } from '../src/evaluate/eval-group.ts';
import {
  createEvalPool,
  evaluateProgram,
  type EvalAnswerer,
  type EvalPool,
  type EvalScorer,
  type GroupRunner,
} from '../src/evaluate/evaluate.ts';
import { createHostTools } from '../src/isolate/host-tools/host-tools.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import { loadHistories } from '../src/history/load.ts';
import type { QAItem } from '../src/history/record.ts';
import { flag } from './args.ts';
import { compileBenchDesign, warmHistory, warmQuestions as warmQuestionsFor } from './warm-up.ts';

const DESIGN = resolve(flag('design', 'seeds/base-bm25.ts'));
const HISTORY = flag('history', `locomo:${resolve('../shared/data/locomo/locomo10.json')}`);
const JOBS = Number(flag('jobs', String(availableParallelism())));
const ROUNDS = Number(flag('rounds', '2'));
const BUDGET = { tokens: 2000 };

const program: CompiledProgram = await compileBenchDesign(DESIGN);
const design = ((await import(pathToFileURL(DESIGN).href)) as { default: MemoryDesign }).default;

const histories = await loadHistories(HISTORY);
const questions: QAItem[] = histories.flatMap((h) => h.qa).filter((q) => ['1', '2', '3', '4'].includes(q.category ?? ''));
const warmQuestions = warmQuestionsFor(['What is the puppy called?', 'What bike was bought?', 'Where is the move?']);

const noAnswer: EvalAnswerer = { id: 'none', answer: async () => ({ answer: '' }) };
const noScore: EvalScorer = () => ({ correct: false, correctBy: 'exact', f1: 0, recallAt: {}, contextRecall: 0 });
const inProcess: GroupRunner = (task, _program, records) =>
  runGroup(task, program, records, directSandboxFactory(design, createHostTools), {});

async function measure(mode: 'pool' | 'in-process', full: boolean, pool: EvalPool): Promise<{ qps: number; ms: number; r10: number }> {
  const scorer = evalScorerFrom(null);
  const common = {
    program,
    budget: BUDGET,
    answerer: full ? evalAnswererFrom(null) : noAnswer,
    score: full ? scorer.score : noScore,
    summarize: summarizeTraces,
    pool,
    ...(mode === 'in-process' ? { runner: inProcess } : {}),
  };
  await evaluateProgram({ ...common, histories: [warmHistory], questions: warmQuestions });
  const t = performance.now();
  const r = await evaluateProgram({ ...common, histories, questions });
  const ms = performance.now() - t;
  const failed = r.traces.filter((x) => x.error).length;
  if (failed) throw new Error(`${mode}: ${failed} questions failed, e.g. ${JSON.stringify(r.traces.find((x) => x.error)!.error)}`);
  return { qps: questions.length / (ms / 1000), ms, r10: r.summary.recallAt['10'] ?? 0 };
}

const pool = createEvalPool({ size: JOBS });
const rows: Array<{ round: number; stages: string; pool: number; inProcess: number; ratio: number }> = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const full of [false, true]) {
      // Alternate which mode goes first so neither always gets the quieter half of the machine.
      const order: Array<'pool' | 'in-process'> = round % 2 ? ['pool', 'in-process'] : ['in-process', 'pool'];
      const got: Record<string, { qps: number; ms: number; r10: number }> = {};
      for (const mode of order) got[mode] = await measure(mode, full, pool);
      const p = got.pool!;
      const d = got['in-process']!;
      if (Math.abs(p.r10 - d.r10) > 1e-9) throw new Error(`pool and in-process disagree: R@10 ${p.r10} vs ${d.r10}`);
      rows.push({
        round,
        stages: full ? 'full (answer+score)' : 'design stages only',
        pool: p.qps,
        inProcess: d.qps,
        ratio: p.qps / d.qps,
      });
    }
  }
} finally {
  await pool.close();
}

console.log(
  `design ${DESIGN}\nhistory ${HISTORY}: ${histories.length} histories, ${questions.length} questions (categories 1-4), ` +
    `budget ${BUDGET.tokens}`,
);
console.log(`pool: ${JOBS} child processes; in-process: this process, no isolate; machine parallelism ${availableParallelism()}`);
console.table(
  rows.map((r) => ({
    ...r,
    pool: `${r.pool.toFixed(0)} q/s`,
    inProcess: `${r.inProcess.toFixed(0)} q/s`,
    ratio: `${r.ratio.toFixed(2)}x`,
  })),
);
for (const stages of ['design stages only', 'full (answer+score)']) {
  const rs = rows.filter((r) => r.stages === stages);
  const best = (k: 'pool' | 'inProcess') => Math.max(...rs.map((r) => r[k]));
  console.log(
    `${stages}: best pool ${best('pool').toFixed(0)} q/s vs best in-process ${best('inProcess').toFixed(0)} q/s ` +
      `→ ${(best('pool') / best('inProcess')).toFixed(2)}x`,
  );
}
