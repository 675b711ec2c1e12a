import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createEvalPool, evaluateProgram, type EvalPool } from '../src/evaluate/evaluate.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import type { QAItem } from '../src/history/record.ts';
import { anaHistory, anaQuestion, anaRecords, compileFile, FIX } from './helpers/ana-history.ts';
import { tempDir } from './helpers/temp-dir.ts';

const records = anaRecords;
const history = anaHistory;
const qa = anaQuestion;

const QUESTIONS: QAItem[] = [
  qa('q-puppy', "What is the name of Ana's golden retriever puppy?", 'Biscuit', ['r01']),
  qa('q-dog', 'Where does the sister who trains dog live?', 'Porto', ['r04']),
  qa('q-bike', 'What road bike did Ana buy?', 'a blue Cannondale', ['r18']),
  qa('q-early', 'What class did Ana start?', 'pottery', ['r05'], '2023-05-08'),
  qa('q-mid', 'Where is Ana moving?', 'Braga', ['r11'], '2023-06-02'),
  qa('q-mid2', 'What tree is in the garden?', 'lemon tree', ['r13'], '2023-06-15'),
  // Asked before its evidence happened: the evidence cannot be in memory (a storage failure by protocol).
  qa('q-future', 'What road bike will Ana buy?', 'a blue Cannondale', ['r18'], '2023-06-01'),
];

const programs: Record<string, CompiledProgram> = {};
const compile = compileFile;

let pool: EvalPool;
beforeAll(async () => {
  pool = createEvalPool({ size: 2 });
  programs.tiny = await compile(join(FIX, 'designs', 'good', 'tiny-bm25.ts'));
  programs.latest = await compile(join(FIX, 'eval-designs', 'latest-first.ts'));
  programs.flaky = await compile(join(FIX, 'eval-designs', 'flaky-context.ts'));
});
afterAll(async () => {
  await pool?.close();
});

function run(program: CompiledProgram, extra: { cacheDir?: string; budget?: number; questions?: QAItem[] } = {}) {
  const scorer = evalScorerFrom(null);
  return evaluateProgram({
    program,
    histories: [history],
    questions: extra.questions ?? QUESTIONS,
    budget: { tokens: extra.budget ?? 200 },
    answerer: evalAnswererFrom(null),
    score: scorer.score,
    judgeId: scorer.judgeId,
    summarize: summarizeTraces,
    pool,
    ...(extra.cacheDir ? { cacheDir: extra.cacheDir } : {}),
  });
}

describe('evaluateProgram', () => {
  it('scores a good design: one trace per question in input order, with provenance, answers and recall', async () => {
    const progress: number[] = [];
    const scorer = evalScorerFrom(null);
    const r = await evaluateProgram({
      program: programs.tiny!,
      histories: [history],
      questions: QUESTIONS,
      budget: { tokens: 200 },
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      summarize: summarizeTraces,
      pool,
      onProgress: (p) => progress.push(p.done),
    });
    expect(r.traces.map((t) => t.question)).toEqual(QUESTIONS.map((q) => q.id));
    expect(r.traces.every((t) => !t.error && t.scores !== null && t.answer !== null)).toBe(true);
    const puppy = r.traces[0]!;
    expect(puppy.rankedRecords[0]).toBe('r01');
    expect(puppy.ranked[0]).toMatchObject({ unit: 'u-r01', sources: ['r01'] });
    expect(puppy.deliveredRecords).toContain('r01');
    expect(puppy.contextText).toContain('Biscuit');
    expect(puppy.contextTokens).toBeGreaterThan(0);
    expect(puppy.contextTokens).toBeLessThanOrEqual(200);
    expect(puppy.scores!.recallAt['1']).toBe(1);
    expect(puppy.toolCalls['bm25.search']).toBe(1);
    expect(r.summary.n).toBe(QUESTIONS.length);
    expect(r.summary.recallAt['10']).toBeGreaterThan(0.5);
    expect(progress.at(-1)).toBe(QUESTIONS.length);
    // Dates 05-08, 06-01, 06-02, 06-15 and "no date": 05-08 and 06-01 see the same 8 records, 06-02 and 06-15
    // the same 13, so three memory builds.
    expect(r.stats.groups).toBe(3);
    // Provenance for diagnosis: gold records some unit of the question's memory names as a source.
    expect(r.recoverable['q-puppy']).toEqual(['r01']);
    expect(r.recoverable['q-early']).toEqual(['r05']);
    expect(r.recoverable['q-future']).toEqual([]);
    const future = QUESTIONS.find((q) => q.id === 'q-future')!;
    expect(r.provenance('ana', 'r18', future)).toBe(false);
    expect(r.provenance('ana', 'r01', QUESTIONS[0]!)).toBe(true);
    expect(r.traces.find((t) => t.question === 'q-future')!.rankedRecords).not.toContain('r18');
  });

  it('enforces question dates on the host: nothing dated after the question reaches ranking or context', async () => {
    const r = await run(programs.latest!);
    const timeOf = new Map(records.map((x) => [x.id, x.time!]));
    for (const t of r.traces) {
      const q = QUESTIONS.find((x) => x.id === t.question)!;
      expect(t.rankedRecords.length).toBeGreaterThan(0);
      if (!q.date) {
        // Undated questions see everything: the newest record comes first.
        expect(t.rankedRecords[0]).toBe('r20');
        continue;
      }
      for (const id of [...t.rankedRecords, ...t.deliveredRecords]) expect(timeOf.get(id)!.slice(0, 10) <= q.date).toBe(true);
    }
    // The newest record visible on each date is what this design ranks first.
    const first = (id: string) => r.traces.find((t) => t.question === id)!.rankedRecords[0];
    expect(first('q-early')).toBe('r08');
    expect(first('q-mid')).toBe('r13');
    expect(first('q-mid2')).toBe('r13');
    expect(first('q-future')).toBe('r08');
  });

  it('a failure in context fails that question only; the others are answered and scored', async () => {
    const r = await run(programs.flaky!);
    const failed = r.traces.filter((t) => t.error);
    expect(failed.map((t) => t.question)).toEqual(['q-dog']);
    expect(failed[0]!.error).toMatchObject({ stage: 'context', kind: 'throw' });
    expect(failed[0]!.error!.message).toContain('context refuses dogs');
    // Retrieval still happened, so recall is measured; the missing answer counts as wrong.
    expect(failed[0]!.scores).toMatchObject({ correct: false, f1: 0 });
    expect(failed[0]!.rankedRecords).toContain('r04');
    expect(r.traces.filter((t) => !t.error).every((t) => t.answer !== null)).toBe(true);
    expect(r.summary.n).toBe(QUESTIONS.length);
    expect(r.stats.failedQuestions).toBe(1);
  });

  it('caches results on disk by program, histories, questions, answerer and budget', async () => {
    const dir = tempDir('memsteer-evalcache-');
    const first = await run(programs.tiny!, { cacheDir: dir });
    expect(first.cached).toBe(false);
    const again = await run(programs.tiny!, { cacheDir: dir });
    expect(again.cached).toBe(true);
    expect(again.cacheKey).toBe(first.cacheKey);
    expect(again.traces.map((t) => [t.question, t.answer, t.rankedRecords])).toEqual(
      first.traces.map((t) => [t.question, t.answer, t.rankedRecords]),
    );
    expect(again.summary).toEqual(first.summary);
    expect(again.recoverable).toEqual(first.recoverable);
    const otherBudget = await run(programs.tiny!, { cacheDir: dir, budget: 100 });
    expect(otherBudget.cached).toBe(false);
    const fewer = await run(programs.tiny!, { cacheDir: dir, questions: QUESTIONS.slice(0, 2) });
    expect(fewer.cached).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(3);
  });

  it('rejects a question about a history that is not loaded', async () => {
    await expect(run(programs.tiny!, { questions: [{ ...QUESTIONS[0]!, history: 'nobody' }] })).rejects.toMatchObject({
      code: 'E_UNKNOWN_HISTORY',
    });
  });
});
