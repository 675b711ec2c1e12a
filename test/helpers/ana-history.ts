import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourceRecord } from '../../sandbox/contract.ts';
import { compileDesign } from '../../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../../src/evaluate/eval-adapters.ts';
import { afterAll, beforeAll } from 'vitest';
import { createEvalPool, type EvalPool, type EvaluateOptions, evaluateProgram } from '../../src/evaluate/evaluate.ts';
import type { History, QAItem } from '../../src/history/record.ts';
import type { CompiledProgram } from '../../src/isolate/sandbox-api.ts';

/** The fixtures folder of the tests. */
export const FIX = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Ana's 20 dated records (`fixtures/designs/records-20.json`), the small history the evaluation tests run on. */
export const anaRecords = JSON.parse(readFileSync(join(FIX, 'designs', 'records-20.json'), 'utf8')) as SourceRecord[];
export const anaHistory: History = { id: 'ana', source: 'test', format: 'jsonl', records: anaRecords, qa: [], unresolvedEvidence: [] };

/** A question about Ana's history with its gold evidence records. */
export const anaQuestion = (id: string, question: string, answer: string, evidence: string[], date?: string): QAItem => ({
  id,
  history: 'ana',
  question,
  answer,
  answerType: 'text',
  category: 'test',
  evidence: evidence.map((record) => ({ record })),
  ...(date ? { date } : {}),
});

/**
 * Questions in four date groups: 8 visible records (q-early, q-future), 13 (q-mid, q-mid2), 17 (q-knee), all 20
 * (q-puppy, q-bike). In time order: q-early, q-future, q-mid, q-mid2, q-knee, q-puppy, q-bike.
 */
export const ANA_DATED_QUESTIONS: QAItem[] = [
  anaQuestion('q-puppy', "What is the name of Ana's golden retriever puppy?", 'Biscuit', ['r01']),
  anaQuestion('q-early', 'What class did Ana start?', 'pottery', ['r05'], '2023-05-08'),
  anaQuestion('q-mid', 'Where is Ana moving?', 'Braga', ['r11'], '2023-06-02'),
  anaQuestion('q-mid2', 'What tree is in the garden?', 'lemon tree', ['r13'], '2023-06-15'),
  anaQuestion('q-future', 'What road bike will Ana buy?', 'a blue Cannondale', ['r18'], '2023-06-01'),
  anaQuestion('q-knee', 'Who did Ana see about her knee?', 'Dr. Silva', ['r16'], '2023-07-20'),
  anaQuestion('q-bike', 'What road bike did Ana buy?', 'a blue Cannondale', ['r18']),
];

/** Compiles a design file, failing the test with its diagnostics. */
export async function compileFile(path: string): Promise<CompiledProgram> {
  const r = await compileDesign(readFileSync(path, 'utf8'), { fileName: path });
  if (!r.ok) throw new Error(`${path}: ${JSON.stringify(r.diagnostics)}`);
  return r.program;
}

/** Evaluates `program` on `questions` over Ana's history with the offline answerer and scorer, 300-token budget. */
export function evaluateAna(
  pool: EvalPool,
  program: CompiledProgram,
  questions: readonly QAItem[],
  extra: Partial<EvaluateOptions<unknown>> = {},
  histories: History[] = [anaHistory],
) {
  const scorer = evalScorerFrom(null);
  return evaluateProgram({
    program,
    histories,
    questions,
    budget: { tokens: 300 },
    answerer: evalAnswererFrom(null),
    score: scorer.score,
    judgeId: scorer.judgeId,
    summarize: summarizeTraces,
    pool,
    ...extra,
  });
}

/**
 * For one test file: a two-process pool started before its tests and closed after them, and the designs at `paths`
 * compiled by name. `evaluate` runs {@link evaluateAna} on that pool.
 */
export function anaPoolSuite(paths: Record<string, string>) {
  let pool: EvalPool | undefined;
  const programs: Record<string, CompiledProgram> = {};
  beforeAll(async () => {
    pool = createEvalPool({ size: 2 });
    for (const [name, path] of Object.entries(paths)) programs[name] = await compileFile(path);
  });
  afterAll(async () => {
    await pool?.close();
  });
  return {
    programs,
    evaluate: (
      program: CompiledProgram,
      questions: readonly QAItem[],
      extra: Partial<EvaluateOptions<unknown>> = {},
      histories: History[] = [anaHistory],
    ) => evaluateAna(pool!, program, questions, extra, histories),
  };
}
