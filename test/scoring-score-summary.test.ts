import { describe, expect, it } from 'vitest';
import type { QAItem } from '../src/history/record.ts';
import { pairedBootstrap } from '../src/optimize/strategies/bootstrap.ts';
import { createRng } from '../src/util/rng.ts';
import { createJudge, type Judge } from '../src/scoring/judge.ts';
import { MARGINAL_TIERS, marginalAnswerScore, marginalUtility, tierWeights, verifiedUnitTexts } from '../src/scoring/marginal-utility.ts';
import { contextRecall, recallAtK, tokenF1 } from '../src/scoring/metrics.ts';
import { scoreQuestion } from '../src/scoring/score.ts';
import { EvalSummarySchema, summarize } from '../src/scoring/summary.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';

const item = (over: Partial<QAItem>): QAItem => ({
  id: 'q1',
  history: 'h',
  question: 'What pet does Caroline have?',
  answer: 'guinea pig',
  answerType: 'text',
  evidence: [{ record: 'D1:3' }, { record: 'D2:5' }],
  ...over,
});

/** A judge that records what it was asked and answers a fixed verdict. */
function recordingJudge(correct: boolean): Judge & { calls: number } {
  const j = {
    kind: 'llm-judge' as const,
    id: 'test-judge',
    calls: 0,
    async judge() {
      j.calls++;
      return { correct, by: 'llm-judge' as const };
    },
  };
  return j;
}

describe('metrics', () => {
  it('SQuAD F1 is unstemmed and drops articles', () => {
    expect(tokenF1('the guinea pig', 'Guinea pig')).toBe(1);
    expect(tokenF1('guinea pigs', 'guinea pig')).toBe(0.5);
    expect(tokenF1('', '')).toBe(1);
    expect(tokenF1('x', '')).toBe(0);
  });
  it('recall@k counts distinct gold records in the first k', () => {
    expect(recallAtK(['a', 'b'], ['x', 'a', 'a', 'y', 'b'], [1, 2, 5])).toEqual({ '1': 0, '2': 0.5, '5': 1 });
    expect(recallAtK([], ['a'], [1])).toEqual({});
    expect(contextRecall(['a', 'b', 'c'], ['c', 'z'])).toBeCloseTo(1 / 3);
    expect(contextRecall([], ['c'])).toBeUndefined();
  });
});

describe('scoreQuestion', () => {
  it('decides by exact match first and never asks the judge then', async () => {
    const judge = recordingJudge(false);
    const s = await scoreQuestion(
      item({}),
      { rankedRecords: ['D1:3', 'x', 'D2:5'], deliveredRecords: ['D1:3'], answer: 'A guinea pig.' },
      { ks: [1, 3], judge },
    );
    expect(s).toEqual({ correct: true, correctBy: 'exact', f1: 1, recallAt: { '1': 0.5, '3': 1 }, contextRecall: 0.5 });
    expect(judge.calls).toBe(0);
  });
  it('falls back to the judge when not an exact match', async () => {
    const judge = recordingJudge(true);
    const s = await scoreQuestion(
      item({}),
      { rankedRecords: [], deliveredRecords: [], answer: 'Oscar, her guinea pig' },
      { ks: [1], judge },
    );
    expect(s.correct).toBe(true);
    expect(s.correctBy).toBe('llm-judge');
    expect(judge.calls).toBe(1);
  });
  it('uses the F1 threshold judge offline', async () => {
    const judge = createJudge({ threshold: 0.5 });
    expect(judge.kind).toBe('f1-threshold');
    const good = await scoreQuestion(item({}), { rankedRecords: [], deliveredRecords: [], answer: 'her guinea pig' }, { ks: [1], judge });
    expect(good).toMatchObject({ correct: true, correctBy: 'f1-threshold' });
    expect(good.f1).toBeCloseTo(0.8);
    const bad = await scoreQuestion(
      item({}),
      { rankedRecords: [], deliveredRecords: [], answer: 'a hamster named pig' },
      { ks: [1], judge },
    );
    expect(bad).toMatchObject({ correct: false, correctBy: 'f1-threshold' });
  });
  it('scores a missing answer as wrong and keeps recall', async () => {
    const s = await scoreQuestion(
      item({}),
      { rankedRecords: ['D2:5'], deliveredRecords: [], answer: null },
      { ks: [1], judge: createJudge() },
    );
    expect(s).toMatchObject({ correct: false, f1: 0, recallAt: { '1': 0.5 }, contextRecall: 0 });
  });
  it('adds LoCoMo F1 for LoCoMo items and handles adversarial ones', async () => {
    const judge = createJudge();
    const multi = item({ generator: 'official:locomo', category: '1', answer: 'pottery, camping, painting, swimming', answerType: 'list' });
    const s1 = await scoreQuestion(multi, { rankedRecords: [], deliveredRecords: [], answer: 'pottery, camping' }, { ks: [1], judge });
    expect(s1.locomoF1).toBe(0.5);
    const adv = item({ generator: 'official:locomo', category: '5', answer: 'Not mentioned' });
    const s5 = await scoreQuestion(
      adv,
      { rankedRecords: [], deliveredRecords: [], answer: 'No information available' },
      { ks: [1], judge },
    );
    expect(s5).toMatchObject({ correct: true, correctBy: 'exact', locomoF1: 1 });
    const trap = await scoreQuestion(adv, { rankedRecords: [], deliveredRecords: [], answer: 'Sweden' }, { ks: [1], judge });
    expect(trap).toMatchObject({ correct: false, locomoF1: 0 });
    const other = await scoreQuestion(
      item({ category: '1' }),
      { rankedRecords: [], deliveredRecords: [], answer: 'x' },
      { ks: [1], judge },
    );
    expect(other.locomoF1).toBeUndefined();
    const forced = await scoreQuestion(
      item({ category: '4' }),
      { rankedRecords: [], deliveredRecords: [], answer: 'guinea pigs' },
      { ks: [1], judge, dataset: 'locomo' },
    );
    expect(forced.locomoF1).toBe(1);
  });
  it('gives items without evidence an empty recallAt', async () => {
    const s = await scoreQuestion(
      item({ evidence: [] }),
      { rankedRecords: ['a'], deliveredRecords: ['a'], answer: 'guinea pig' },
      { ks: [1, 5], judge: createJudge() },
    );
    expect(s.recallAt).toEqual({});
  });
});

function trace(over: Partial<QuestionTrace>): QuestionTrace {
  return {
    question: 'q',
    history: 'h',
    ranked: [],
    rankedRecords: [],
    delivered: [],
    deliveredRecords: [],
    contextTokens: 100,
    contextText: '',
    answer: 'x',
    reference: 'x',
    scores: { correct: true, correctBy: 'exact', f1: 1, recallAt: { '1': 1, '5': 1 }, contextRecall: 1 },
    timeMs: { store: 1, retrieve: 2, context: 3, answer: 4 },
    toolCalls: {},
    llmTokens: { prompt: 1000, completion: 10 },
    ...over,
  };
}

describe('summarize', () => {
  const traces: QuestionTrace[] = [
    trace({
      category: '1',
      scores: { correct: true, correctBy: 'exact', f1: 1, locomoF1: 1, recallAt: { '1': 1, '5': 1 }, contextRecall: 1 },
    }),
    trace({
      category: '1',
      contextTokens: 300,
      scores: { correct: false, correctBy: 'f1-threshold', f1: 0.2, locomoF1: 0.5, recallAt: { '1': 0, '5': 0.5 }, contextRecall: 0.5 },
    }),
    trace({ category: '5', scores: { correct: true, correctBy: 'exact', f1: 0, locomoF1: 1, recallAt: {}, contextRecall: 0 } }),
    trace({
      category: '2',
      answer: null,
      scores: { correct: false, correctBy: 'f1-threshold', f1: 0, locomoF1: 0, recallAt: { '1': 0, '5': 0 }, contextRecall: 0 },
      error: { stage: 'retrieve', kind: 'timeout', message: 't' },
    }),
  ];
  it('aggregates overall and per category', () => {
    const s = summarize(traces, { price: { prompt: 1, completion: 2 } });
    expect(EvalSummarySchema.parse(s)).toEqual(s);
    expect(s.n).toBe(4);
    expect(s.answered).toBe(3);
    expect(s.accuracy).toBe(0.5);
    expect(s.f1).toBeCloseTo(0.3);
    // the no-evidence category-5 item stays out of recall means
    expect(s.withEvidence).toBe(3);
    expect(s.recallAt).toEqual({ '1': 1 / 3, '5': 0.5 });
    expect(s.contextRecall).toBeCloseTo(0.5);
    expect(s.meanContextTokens).toBe(150);
    expect(s.errors).toEqual({ timeout: 1 });
    expect(s.errorsByStage).toEqual({ retrieve: 1 });
    expect(s.correctBy).toEqual({ exact: 2, 'f1-threshold': 2 });
    expect(s.locomo).toEqual({ byCategory: { '1': 0.75, '2': 0, '5': 1 }, overall: 0.625, categories1to4: 0.5 });
    expect(s.perCategory['1']).toMatchObject({ n: 2, accuracy: 0.5, locomoF1: 0.75, recallAt: { '1': 0.5, '5': 0.75 } });
    expect(s.perCategory['5']!.contextRecall).toBeNull();
    expect(s.cost).toEqual({ promptTokens: 4000, completionTokens: 40, dollars: (4000 + 80) / 1e6 });
  });
  it('reports unknown dollars as null, not 0', () => {
    expect(summarize(traces).cost.dollars).toBeNull();
    expect(summarize([]).n).toBe(0);
  });
});

describe('pairedBootstrap', () => {
  it('is seeded and finds a clear improvement', () => {
    const a = Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? 0 : 1));
    const b = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 0 : 1));
    const r1 = pairedBootstrap(a, b, { resamples: 500, rng: createRng(7) });
    const r2 = pairedBootstrap(a, b, { resamples: 500, rng: createRng(7) });
    expect(r1).toEqual(r2);
    expect(r1.mean).toBeCloseTo(0.8 - 0.5);
    expect(r1.lower).toBeGreaterThan(0);
    expect(r1.upper).toBeLessThan(0.6);
    expect(r1.pBetter).toBeGreaterThan(0.99);
  });
  it('says 0.5 for identical score vectors and rejects unpaired input', () => {
    const same = pairedBootstrap([1, 0, 1], [1, 0, 1], { rng: createRng(1) });
    expect([same.mean, same.lower, same.upper, same.pBetter]).toEqual([0, 0, 0, 0.5]);
    expect(() => pairedBootstrap([1], [1, 2], { rng: createRng(1) })).toThrow(/paired/);
  });
});

describe('marginalUtility (MemSifter)', () => {
  it('weights tiers by C(F(i)) − C(F(i+1)) with C(k) = 1/log2(k+1), the last by C(F(N)); they sum to 1', () => {
    const C = (k: number) => 1 / Math.log2(k + 1);
    const w = tierWeights(MARGINAL_TIERS);
    expect(MARGINAL_TIERS).toEqual([1, 2, 3, 5, 8]);
    expect(w[0]).toBeCloseTo(C(1) - C(2));
    expect(w[3]).toBeCloseTo(C(5) - C(8));
    expect(w[4]).toBeCloseTo(C(8));
    expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(() => tierWeights([0])).toThrow(RangeError);
    expect(() => tierWeights([2, 1])).toThrow(RangeError);
  });
  it('is the weighted net gain over answering without memory, and rewards useful units ranked first', async () => {
    const asked: number[] = [];
    const r = await marginalUtility(
      async (k) => {
        asked.push(k);
        return ({ 0: 0.2, 1: 1, 3: 0.5 } as Record<number, number>)[k]!;
      },
      { tiers: [1, 3] },
    );
    expect(asked).toEqual([0, 1, 3]);
    expect(r.baseline).toBe(0.2);
    const w = tierWeights([1, 3]);
    expect(r.utility).toBeCloseTo(w[0]! * 0.8 + w[1]! * 0.3);
    // The same answer found at rank 1 earns more than at rank 4 (reached only from tier 5).
    const first = await marginalUtility(async (k) => (k >= 1 ? 1 : 0));
    const fourth = await marginalUtility(async (k) => (k >= 4 ? 1 : 0));
    expect(first.utility).toBeCloseTo(1);
    expect(fourth.utility).toBeGreaterThan(0);
    expect(fourth.utility).toBeLessThan(first.utility);
  });
  it('is negative when memory hurts, zero when it changes nothing', async () => {
    expect((await marginalUtility(async (k) => (k === 0 ? 1 : 0))).utility).toBeCloseTo(-1);
    expect((await marginalUtility(async () => 0.4)).utility).toBeCloseTo(0);
  });
  it('credits only unit texts the context really holds, in reading order, each text once', () => {
    const units = [
      { id: 'a', text: 'Alpha went   to Lisbon.' },
      { id: 'b', text: 'Beta stayed home.' },
      { id: 'ghost', text: 'Never shown to the answerer.' },
      { id: 'dup', text: 'Beta stayed home.' },
      { id: 'empty', text: '' },
    ];
    const context = 'Notes\nBeta stayed home.\nAlpha went to\nLisbon.';
    expect(verifiedUnitTexts(context, units, 8)).toEqual(['Beta stayed home.', 'Alpha went to Lisbon.']);
    expect(verifiedUnitTexts(context, units, 1)).toEqual(['Beta stayed home.']);
  });
  it('scores answers by token F1, and unanswerable items by declining', () => {
    const item = {
      id: 'q',
      history: 'h',
      question: 'Where?',
      answer: 'Lisbon, Portugal',
      answerType: 'text',
      evidence: [],
    } as unknown as QAItem;
    expect(marginalAnswerScore(item, 'Lisbon Portugal')).toBe(1);
    expect(marginalAnswerScore(item, '')).toBe(0);
    expect(marginalAnswerScore({ ...item, answer: 'not mentioned' }, 'not mentioned in the conversation')).toBe(1);
  });
});
