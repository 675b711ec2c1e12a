import { describe, expect, it } from 'vitest';
import { diagnose, provenanceFromMemories, summarizeDiagnosis } from '../src/diagnose/index.ts';
import type { QAItem } from '../src/history/record.ts';
import { qa, trace } from './fixtures/edits/qa-traces.ts';

// Memory of h1 carries r1..r6 in some unit's text; r9 was dropped at store time, and the unit that still names it
// as a source does not carry its text (a claim, not provenance).
const text = (id: string) => `record ${id} says something about the ${id} topic of the day`;
const records = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'].map((id) => ({ id, text: text(id) }));
const provenance = provenanceFromMemories([
  {
    history: 'h1',
    records,
    units: [
      { text: `${text('r1')}\n${text('r2')}`, sources: ['r1', 'r2'] },
      { text: text('r3'), sources: ['r3', 'r9'] },
      { text: [text('r4'), text('r5'), text('r6')].join(' '), sources: ['r4', 'r5', 'r6'] },
    ],
  },
]);

const items = [
  qa('answering', ['r1', 'r2']),
  qa('retrieval', ['r1', 'r3']),
  qa('storage', ['r3', 'r9']),
  qa('correct', ['r4']),
  qa('crashed', ['r5']),
  qa('no-evidence', []),
  qa('untraced', ['r1']),
  qa('retrieval2', ['r4', 'r4', 'r6']),
];
const traces = [
  trace('answering', { delivered: ['r2', 'r1', 'r7'], correct: false }),
  trace('retrieval', { ranked: ['r1', 'r7', 'r8', 'r3'], delivered: ['r1', 'r7'], correct: false }),
  trace('storage', { delivered: ['r3'], correct: false }),
  trace('correct', { delivered: ['r1'], correct: true }),
  trace('crashed', { error: { stage: 'retrieve', kind: 'throw', message: 'x is undefined' }, scores: null }),
  trace('no-evidence', { delivered: ['r1'], correct: false }),
  trace('retrieval2', { delivered: ['r4'], correct: false }),
  trace('other-history', { history: 'h2', delivered: [] }),
];

describe('diagnose (accuracy)', () => {
  const d = diagnose(items, traces, provenance, { objective: 'accuracy' });
  const cat = (id: string) => d.questions.find((q) => q.question === id)?.category;

  it('attributes each failure by its evidence', () => {
    expect(cat('answering')).toBe('answering');
    expect(cat('retrieval')).toBe('retrieval');
    expect(cat('storage')).toBe('storage');
    expect(cat('correct')).toBe('pass');
    expect(cat('crashed')).toBe('error');
    expect(cat('no-evidence')).toBe('unattributed');
    expect(cat('retrieval2')).toBe('retrieval');
  });

  it('records missing, unrecoverable and the ranks of missing evidence', () => {
    expect(d.questions.find((q) => q.question === 'retrieval')).toEqual({
      question: 'retrieval',
      history: 'h1',
      category: 'retrieval',
      evidence: ['r1', 'r3'],
      missing: ['r3'],
      unrecoverable: [],
      missingRanks: { r3: 4 },
    });
    expect(d.questions.find((q) => q.question === 'storage')).toMatchObject({
      missing: ['r9'],
      unrecoverable: ['r9'],
      missingRanks: { r9: null },
    });
    expect(d.questions.find((q) => q.question === 'retrieval2')).toMatchObject({ evidence: ['r4', 'r6'], missing: ['r6'] });
    expect(d.questions.find((q) => q.question === 'crashed')!.error).toBe('retrieve throw: x is undefined');
  });

  it('counts categories, picks the dominant one and lists what it could not diagnose', () => {
    expect(d.counts).toEqual({ pass: 1, answering: 1, retrieval: 2, storage: 1, error: 1, unattributed: 1 });
    expect(d.total).toBe(7);
    expect(d.failures).toBe(6);
    expect(d.dominant).toBe('retrieval');
    expect(d.undiagnosed).toEqual([{ question: 'untraced', history: 'h1', reason: 'no trace' }]);
    expect(summarizeDiagnosis(d)).toBe(
      '6 of 7 questions fail (accuracy): storage 1, retrieval 2, answering 1, error 1, unattributed 1 (dominant: retrieval)',
    );
  });
});

describe('diagnose (evidence objective)', () => {
  it('fails a question whose context misses gold evidence even when the answer is right; never blames answering', () => {
    const d = diagnose(
      [qa('a', ['r1']), qa('b', ['r1', 'r3']), qa('c', ['r9'])],
      [
        trace('a', { delivered: ['r1'], correct: false }),
        trace('b', { delivered: ['r1'], correct: true }),
        trace('c', { delivered: [], scores: null }),
      ],
      provenance,
      { objective: 'evidence' },
    );
    expect(d.questions.map((q) => [q.question, q.category])).toEqual([
      ['a', 'pass'],
      ['b', 'retrieval'],
      ['c', 'storage'],
    ]);
    expect(d.counts.answering).toBe(0);
    expect(d.undiagnosed).toEqual([]);
  });
});

describe('diagnose (ranking objective)', () => {
  it('fails a question whose gold evidence is ranked below the first ten records, even when the context delivers it', () => {
    const deep = ['r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'x1', 'x2', 'x3', 'r1'];
    const d = diagnose(
      [qa('top', ['r1']), qa('deep', ['r1']), qa('lost', ['r9'])],
      [
        trace('top', { ranked: ['r1', ...deep], delivered: [] }),
        trace('deep', { ranked: deep, delivered: ['r1'], correct: true }),
        trace('lost', { ranked: deep, delivered: [] }),
      ],
      provenance,
      { objective: 'ranking' },
    );
    expect(d.questions.map((q) => [q.question, q.category])).toEqual([
      ['top', 'pass'],
      ['deep', 'retrieval'],
      ['lost', 'storage'],
    ]);
    expect(d.questions[1]).toMatchObject({ missing: ['r1'], missingRanks: { r1: 11 } });
  });
});

describe('diagnose (f1) and provenance forms', () => {
  it('uses the F1 threshold and reports unscored traces', () => {
    const d = diagnose(
      [qa('a', ['r1']), qa('b', ['r1']), qa('c', ['r1'])],
      [
        trace('a', { delivered: ['r1'], f1: 0.4 }),
        trace('b', { delivered: ['r1'], f1: 0.6 }),
        trace('c', { delivered: ['r1'], scores: null }),
      ],
      provenance,
      { objective: 'f1' },
    );
    expect(d.questions.map((q) => q.category)).toEqual(['answering', 'pass']);
    expect(d.undiagnosed).toEqual([{ question: 'c', history: 'h1', reason: 'no scores for the f1 objective' }]);
    expect(
      diagnose([qa('a', ['r1'])], [trace('a', { delivered: ['r1'], f1: 0.4 })], provenance, { objective: 'f1', f1Threshold: 0.3 }).counts
        .pass,
    ).toBe(1);
  });

  it('accepts a flat set or a predicate that sees the item (date groups)', () => {
    const items2 = [qa('early', ['r5'], { date: '2023-01-01' }), qa('late', ['r5'], { date: '2023-06-01' })];
    const traces2 = [trace('early', { delivered: [] }), trace('late', { delivered: [] })];
    // r5 was only written to memory in May: recoverable for the late question only.
    const byDate = (_h: string, r: string, item: QAItem) => r === 'r5' && (item.date ?? '') >= '2023-05-01';
    expect(diagnose(items2, traces2, byDate, { objective: 'evidence' }).questions.map((q) => q.category)).toEqual(['storage', 'retrieval']);
    expect(diagnose(items2, traces2, new Set(['r5']), { objective: 'evidence' }).counts.retrieval).toBe(2);
    // Another history's provenance does not count.
    expect(
      diagnose([qa('x', ['r1'], { history: 'h2' })], [trace('x', { history: 'h2' })], provenance, { objective: 'evidence' }).dominant,
    ).toBe('storage');
  });

  it('breaks ties towards the upstream category and is null without failures', () => {
    const d = diagnose([qa('a', ['r9']), qa('b', ['r3'])], [trace('a', {}), trace('b', {})], provenance, { objective: 'evidence' });
    expect(d.counts).toMatchObject({ storage: 1, retrieval: 1 });
    expect(d.dominant).toBe('storage');
    expect(diagnose([qa('a', ['r1'])], [trace('a', { delivered: ['r1'] })], provenance, { objective: 'evidence' }).dominant).toBeNull();
  });
});
