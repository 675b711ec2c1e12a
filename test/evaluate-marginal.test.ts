/**
 * Marginal utility as evaluateProgram measures it: from the unit texts the context really delivered, in reading
 * order. Declaring undelivered units earns nothing, and the same units delivered worst-first earn less.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileDesign } from '../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalPool } from '../src/evaluate/evaluate.ts';
import type { QAItem } from '../src/history/record.ts';
import { anaHistory, anaQuestion } from './helpers/ana-history.ts';

const history = anaHistory;
const qa = anaQuestion;

const QUESTIONS: QAItem[] = [
  qa('q-puppy', "What is the name of Ana's golden retriever puppy?", 'Biscuit', ['r01']),
  qa('q-dog', 'Where does the sister who trains dogs live?', 'Porto', ['r04']),
  qa('q-bike', 'What road bike did Ana buy?', 'a blue Cannondale', ['r18']),
  qa('q-class', 'What class did Ana start?', 'pottery', ['r05']),
  qa('q-move', 'Where is Ana moving?', 'Braga', ['r11']),
  qa('q-tree', 'What tree is in the garden?', 'lemon tree', ['r13']),
];

/** One unit per record, BM25 top 5; `pick` chooses the delivered lines and `declare` the declared unit ids. */
function design(pick: string, declare: string): string {
  return `import type { Context, Hit, Memory, MemoryDesign, Question, SourceRecord, Tools } from '../sandbox/contract.ts';
export default {
  store(records: SourceRecord[]): Memory {
    return { units: records.map((r) => ({ id: 'u-' + r.id, text: (r.speaker ? r.speaker + ': ' : '') + r.text, sources: [r.id] })) };
  },
  retrieve(q: Question, memory: Memory, tools: Tools): Hit[] {
    return tools.bm25.index(memory.units.map((u) => ({ id: u.id, text: u.text }))).search(q.text, 5);
  },
  context(q: Question, hits: Hit[], memory: Memory): Context {
    const byId = new Map(memory.units.map((u) => [u.id, u]));
    const ranked = hits.map((h) => byId.get(h.unit)!).filter(Boolean);
    const shown = ${pick};
    return { text: shown.map((u) => u.text).join('\\n'), units: ${declare} };
  },
} satisfies MemoryDesign;
`;
}

const DESIGNS = {
  honest: design('ranked', 'shown.map((u) => u.id)'),
  reversed: design('[...ranked].reverse()', 'shown.map((u) => u.id)'),
  top1: design('ranked.slice(0, 1)', 'shown.map((u) => u.id)'),
  // Delivers the top unit only, but declares every unit of memory as delivered.
  declarer: design('ranked.slice(0, 1)', 'memory.units.map((u) => u.id)'),
};

let pool: EvalPool;
const utility: Record<string, number[]> = {};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

beforeAll(async () => {
  pool = createEvalPool({ size: 2 });
  const scorer = evalScorerFrom(null);
  for (const [name, source] of Object.entries(DESIGNS)) {
    const c = await compileDesign(source, { fileName: `${name}.ts` });
    if (!c.ok) throw new Error(`${name}: ${JSON.stringify(c.diagnostics)}`);
    const r = await evaluateProgram({
      program: c.program,
      histories: [history],
      questions: QUESTIONS,
      budget: { tokens: 400 },
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
      marginal: {},
    });
    utility[name] = r.traces.map((t) => {
      expect(t.error).toBeUndefined();
      return t.scores!.marginalUtility!;
    });
    expect(r.summary.marginalUtility).toBeCloseTo(mean(utility[name]!), 10);
  }
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe('evaluateProgram with marginal utility', () => {
  it('scores memory that answers the question above zero', () => {
    expect(mean(utility.honest!)).toBeGreaterThan(0.3);
  });
  it('credits useful units ranked first above the same units delivered worst-first', () => {
    expect(mean(utility.reversed!)).toBeLessThan(mean(utility.honest!));
  });
  it('gives declared but undelivered units nothing', () => {
    expect(utility.declarer).toEqual(utility.top1);
  });
  it("records an answerer failure during the extra answers as that question's failure, and goes on", async () => {
    const c = await compileDesign(DESIGNS.honest, { fileName: 'honest.ts' });
    if (!c.ok) throw new Error('compile');
    const scorer = evalScorerFrom(null);
    const reader = evalAnswererFrom(null);
    const r = await evaluateProgram({
      program: c.program,
      histories: [history],
      questions: QUESTIONS.slice(0, 2),
      budget: { tokens: 400 },
      // A distinct answerer object: the no-memory answers of the run above are not reused.
      answerer: {
        id: 'flaky-without-memory',
        answer: async (item, context) => {
          if (context === '') throw new Error('endpoint down');
          return reader.answer(item, context);
        },
      },
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
      marginal: {},
    });
    for (const t of r.traces) {
      expect(t.error).toMatchObject({ stage: 'answer', kind: 'throw' });
      expect(t.error!.message).toMatch(/endpoint down/);
      expect(t.scores!.marginalUtility).toBe(0);
    }
  });
  it('leaves scores without marginal utility when not asked for', async () => {
    const c = await compileDesign(DESIGNS.honest, { fileName: 'honest.ts' });
    if (!c.ok) throw new Error('compile');
    const scorer = evalScorerFrom(null);
    const r = await evaluateProgram({
      program: c.program,
      histories: [history],
      questions: QUESTIONS.slice(0, 2),
      budget: { tokens: 400 },
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
    });
    expect(r.traces.every((t) => t.scores!.marginalUtility === undefined)).toBe(true);
    expect(r.summary.marginalUtility).toBeNull();
  });
});
