import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { createEvalPool, evaluateProgram, type EvalPool, type EvaluationResult } from '../src/evaluate/evaluate.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import type { EvalSummary } from '../src/scoring/summary.ts';
import type { History, QAItem } from '../src/history/record.ts';

const FIX = fileURLToPath(new URL('./fixtures/designs/', import.meta.url));
const HOSTILE = join(FIX, 'hostile');
const records = JSON.parse(readFileSync(join(FIX, 'records-20.json'), 'utf8')) as SourceRecord[];
const history: History = { id: 'ana', source: 'test', format: 'jsonl', records, qa: [], unresolvedEvidence: [] };
const questions: QAItem[] = [
  {
    id: 'q1',
    history: 'ana',
    question: 'What is the name of the golden retriever puppy?',
    answer: 'Biscuit',
    answerType: 'text',
    evidence: [{ record: 'r01' }],
  },
  {
    id: 'q2',
    history: 'ana',
    question: 'What road bike did Ana buy?',
    answer: 'a blue Cannondale',
    answerType: 'text',
    evidence: [{ record: 'r18' }],
  },
  { id: 'q3', history: 'ana', question: 'Where is Ana moving?', answer: 'Braga', answerType: 'text', evidence: [{ record: 'r11' }] },
];

/** Designs that blow up the whole process (V8 fatal OOM) rather than just their isolate. */
const PROCESS_KILLERS = ['map-bomb.ts', 'set-bomb.ts', 'object-keys-bomb.ts'];

let pool: EvalPool;
const results = new Map<string, EvaluationResult<EvalSummary>>();
const hostile = readdirSync(HOSTILE)
  .filter((f) => f.endsWith('.ts'))
  .sort();

beforeAll(async () => {
  pool = createEvalPool({ size: 2 });
  const scorer = evalScorerFrom(null);
  const designs = ['good/tiny-bm25.ts', ...hostile.map((f) => `hostile/${f}`), 'good/tiny-bm25.ts#again'];
  // All candidates go to the pool at once, as the optimizer sends them: the good ones share processes with the hostile ones.
  await Promise.all(
    designs.map(async (name) => {
      const file = join(FIX, name.replace(/#.*$/, ''));
      const compiled = await compileDesign(readFileSync(file, 'utf8'), { fileName: file });
      if (!compiled.ok) throw new Error(`${name} does not compile: ${compiled.diagnostics.map((d) => d.message).join('; ')}`);
      const r = await evaluateProgram({
        program: compiled.program,
        histories: [history],
        questions,
        budget: { tokens: 200 },
        answerer: evalAnswererFrom(null),
        score: scorer.score,
        summarize: summarizeTraces,
        pool,
        // Short limits keep the hanging designs quick; they are the per-call limits, not the pool's.
        limits: { storeTimeoutMs: 2_000, callTimeoutMs: 1_000, memoryMb: 64 },
      });
      results.set(name, r);
    }),
  );
}, 240_000);

afterAll(async () => {
  await pool?.close();
});

describe('hostile designs through the pool', () => {
  it('has the hostile fixtures', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(10);
    for (const f of PROCESS_KILLERS) expect(hostile).toContain(f);
  });

  it('good designs in the same run score normally, before and after the hostile ones', () => {
    for (const name of ['good/tiny-bm25.ts', 'good/tiny-bm25.ts#again']) {
      const r = results.get(name)!;
      expect(r.traces.every((t) => !t.error)).toBe(true);
      expect(r.traces.map((t) => t.rankedRecords[0])).toEqual(['r01', 'r18', 'r11']);
      expect(r.summary.recallAt['1']).toBe(1);
    }
  });

  it('every process-killing memory bomb is a crash with a reason, and the pool replaced the process', () => {
    for (const f of PROCESS_KILLERS) {
      const r = results.get(`hostile/${f}`)!;
      for (const t of r.traces) {
        expect(t.error, `${f} ${t.question}`).toBeDefined();
        // Usually the process dies (crash) or the isolate hits its limit (memory); on a loaded machine the GC
        // thrash near the limit can outlast the store deadline first (timeout). Contained either way.
        expect(['crash', 'memory', 'timeout']).toContain(t.error!.kind);
        expect(t.error!.message.length).toBeGreaterThan(10);
        expect(t.scores).toMatchObject({ correct: false });
      }
    }
    const stats = pool.stats();
    expect(stats.crashed).toBeGreaterThanOrEqual(1);
    expect(stats.spawned - stats.size).toBe(stats.crashed + stats.timedOut);
    expect(pool.pids()).toHaveLength(2);
  });

  it('every hostile design is contained: a failure with a reason, or (for probes) a clean run that reached nothing', () => {
    for (const f of hostile) {
      const r = results.get(`hostile/${f}`)!;
      expect(r.traces).toHaveLength(questions.length);
      const errors = r.traces.filter((t) => t.error);
      for (const t of errors) {
        expect(t.error!.message, f).toMatch(/\S/);
        expect(['throw', 'timeout', 'memory', 'malformed', 'crash', 'budget']).toContain(t.error!.kind);
      }
      if (errors.length === 0) {
        // Designs that only probe (reach-out, prototype-tamper) finish; what they found is in their log.
        expect(['reach-out.ts', 'prototype-tamper.ts', 'throw-non-errors.ts', 'malformed-results.ts']).toContain(f);
      }
    }
  });

  it('reports what happened to each design', () => {
    const outcome = Object.fromEntries(
      hostile.map((f) => [
        f,
        [...new Set(results.get(`hostile/${f}`)!.traces.map((t) => (t.error ? `${t.error.stage}/${t.error.kind}` : 'ok')))].join(','),
      ]),
    );
    console.info(JSON.stringify(outcome, null, 1));
    expect(Object.keys(outcome)).toHaveLength(hostile.length);
  });

  it('the pool still runs work after the whole hostile batch', async () => {
    const compiled = await compileDesign(readFileSync(join(FIX, 'good', 'tiny-bm25.ts'), 'utf8'), { fileName: 'tiny-bm25.ts' });
    if (!compiled.ok) throw new Error('tiny-bm25 does not compile');
    const scorer = evalScorerFrom(null);
    const r = await evaluateProgram({
      program: compiled.program,
      histories: [history],
      questions,
      budget: { tokens: 200 },
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      summarize: summarizeTraces,
      pool,
    });
    expect(r.traces.every((t) => !t.error)).toBe(true);
  });
});
