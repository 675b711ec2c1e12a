import { meanDifferenceBootstrap } from '../src/optimize/strategies/bootstrap.ts';
import { createRng } from '../src/util/rng.ts';
import { describe, expect, it } from 'vitest';
import type { QAItem } from '../src/history/record.ts';
import {
  calibrate,
  CalibrationReportSchema,
  namesDate,
  mixDistance,
  noContentOverlap,
  questionForm,
  seedKey,
  setStats,
} from '../src/supervision/calibration.ts';

const item = (history: string, id: string, question: string, records: string[], split?: 'train' | 'val'): QAItem => ({
  id,
  history,
  question,
  answer: 'x',
  answerType: 'text',
  evidence: records.map((record) => ({ record })),
  ...(split ? { split } : {}),
});

const TEXT: Record<string, string> = {
  r1: 'I adopted a puppy named Biscuit last weekend.',
  r2: 'My sister Ana moved to Lisbon for her new job.',
  r3: 'We went hiking in the Alps together.',
};
const text = (id: string) => TEXT[id];

describe('question forms', () => {
  it('classifies by first word, auxiliaries as yes-no', () => {
    expect(questionForm('What are Kate’s hobbies?')).toBe('what');
    expect(questionForm('when did she move?')).toBe('when');
    expect(questionForm('Did Ana move to Lisbon?')).toBe('yes-no');
    expect(questionForm('Has she ever been hiking?')).toBe('yes-no');
    expect(questionForm('After the trip, which city did she visit?')).toBe('other');
    expect(questionForm('Why did she leave?')).toBe('why');
    expect(questionForm('yes no?')).toBe('other');
  });

  it('total variation distance is half the L1 distance of the mixes', () => {
    const a = setStats([item('h', '1', 'What is it?', []), item('h', '2', 'When was it?', [])], text).forms;
    const b = setStats([item('h', '3', 'What is it?', []), item('h', '4', 'What else?', [])], text).forms;
    expect(mixDistance(a, b)).toBeCloseTo(0.5);
    expect(mixDistance(a, a)).toBe(0);
  });
});

describe('content-word overlap', () => {
  it('ignores stop words and inflection, counts a different word as a gap', () => {
    expect(noContentOverlap('What did she adopt?', TEXT.r1!)).toBe(false); // adopt ~ adopted
    expect(noContentOverlap('What pet does the user have?', TEXT.r1!)).toBe(true);
    expect(noContentOverlap('Where is he from?', TEXT.r1!)).toBe(true); // only stop words
  });
});

describe('setStats', () => {
  it('computes the no-overlap share over items with resolvable evidence and the evidence-count buckets', () => {
    const s = setStats(
      [
        item('h', '1', 'What pet does the user have?', ['r1']), // no overlap
        item('h', '2', 'Where did Ana move?', ['r2']), // overlap: ana, move
        item('h', '3', 'Which mountains did they visit?', ['r3', 'r2']), // no overlap with either
        item('h', '4', 'Did they go hiking?', ['missing']), // unresolvable: not in the share
        item('h', '5', 'Who is Biscuit?', []), // no evidence
      ],
      text,
    );
    expect(s.items).toBe(5);
    expect(s.withEvidence).toBe(3);
    expect(s.noOverlapShare).toBeCloseTo(2 / 3);
    expect(s.evidenceCounts).toEqual({ '0': 1, '1': 3, '2': 1, '3': 0, '4+': 0 });
    expect(s.meanEvidence).toBeCloseTo(5 / 5);
    expect(s.forms.what).toBeCloseTo(0.2);
    expect(s.forms['yes-no']).toBeCloseTo(0.2);
    // Share of each question's content words its evidence has: pet/user 0 of 2, ana/move 2 of 2, mountain/visit 0.
    expect(s.evidenceCoverage).toBeCloseTo(1 / 3);
    // pet user · ana move · mountain visit · go hike · biscuit
    expect(s.meanContentWords).toBeCloseTo(9 / 5);
  });

  it('measures how much of a question its evidence has, beyond sharing a word or not', () => {
    const s = setStats(
      [
        item('h', '1', 'When did the user adopt the puppy?', ['r1']), // user, adopt, puppy: 2 of 3
        item('h', '2', 'After her move to Lisbon, which job did my sister take in the Alps?', ['r2']),
      ],
      text,
    );
    // move lisbon job sister alp ("take" is a stop word): 4 of 5 in r2, the Alps are not
    expect(s.evidenceCoverage).toBeCloseTo((2 / 3 + 4 / 5) / 2);
    expect(s.noOverlapShare).toBe(0);
    expect(setStats([item('h', '1', 'Where is it?', ['r1'])], text).evidenceCoverage).toBeNull();
  });

  it('counts the questions that name a month or a date, not the verbs "may" and "march"', () => {
    const asked = [
      'What did I cook in November?',
      'Which kit did I use on 3 May 2024?',
      'What was logged on 2024-05-03?',
      'May I ask where the puppy came from?',
      'Did the band march in the parade?',
      'What did Ana do the day she moved?',
    ];
    expect(asked.map(namesDate)).toEqual([true, true, true, false, false, false]);
    const s = setStats(
      asked.map((q, k) => item('h', String(k), q, ['r1'])),
      text,
    );
    expect(s.datedShare).toBeCloseTo(3 / 6);
  });
});

describe('evidence kinds', () => {
  const KIND: Record<string, string> = { r1: 'turn', r2: 'turn', r3: 'document' };
  const kind = (id: string) => KIND[id];

  it('shares items by the kinds of record they cite, half to each kind for an item citing two', () => {
    const s = setStats(
      [item('h', '1', 'What pet?', ['r1']), item('h', '2', 'Where to?', ['r1', 'r2']), item('h', '3', 'Which trip?', ['r2', 'r3'])],
      text,
      kind,
    );
    expect(s.evidenceKinds.turn).toBeCloseTo(2.5 / 3);
    expect(s.evidenceKinds.document).toBeCloseTo(0.5 / 3);
    expect(setStats([item('h', '1', 'What pet?', ['r1'])], text).evidenceKinds).toEqual({});
  });

  it('reports the distance between the generated and official kind mixes, pooled by items', () => {
    const inputs = [
      {
        id: 'a',
        recordText: text,
        recordKind: kind,
        generated: [item('a', 'g1', 'What pet?', ['r1']), item('a', 'g2', 'Where?', ['r2'])],
        official: [item('a', 'o1', 'Which trip?', ['r3']), item('a', 'o2', 'What pet?', ['r1'])],
      },
      { id: 'b', recordText: text, recordKind: kind, generated: [item('b', 'g3', 'Which trip?', ['r3'])], official: [] },
    ];
    const r = calibrate(inputs, () => 'heldout');
    expect(r.byHistory[0]!.kindDistance).toBeCloseTo(0.5);
    expect(r.byHistory[1]!.kindDistance).toBeNull();
    expect(r.all.generated.evidenceKinds).toEqual({ document: 1 / 3, turn: 2 / 3 });
    expect(r.all.kindDistance).toBeCloseTo(1 / 6);
  });
});

describe('calibrate', () => {
  const generated = [
    item('conv-26', 'g1', 'When did the user adopt the puppy?', ['r1'], 'val'),
    item('conv-26', 'g2', 'How many times did Ana move?', ['r2'], 'train'),
    item('other', 'g3', 'What pet does the user have?', ['r1'], 'val'),
  ];
  const official = [item('conv-26', 'o1', 'What pet does the user have?', ['r1']), item('other', 'o1', 'What sport do they like?', ['r3'])];
  const inputs = ['conv-26', 'other'].map((id) => ({
    id,
    recordText: text,
    generated: generated.filter((g) => g.history === id),
    official: official.filter((o) => o.history === id),
  }));
  const split = (id: string) => (id === 'conv-26' ? ('dev' as const) : ('heldout' as const));

  it('reports development and held-out histories apart, with the form distance and no-overlap gap', () => {
    const r = CalibrationReportSchema.parse(calibrate(inputs, split));
    expect(r.dev!.histories).toEqual(['conv-26']);
    expect(r.heldout!.histories).toEqual(['other']);
    expect(r.all.generated.items).toBe(3);
    // dev: generated when 1/2, how 1/2; official what 1 → TVD 1
    expect(r.dev!.formDistance).toBeCloseTo(1);
    expect(r.dev!.noOverlapGap).toBeCloseTo(0 - 1);
    // held-out: both all "what" → TVD 0; both sets have no overlap
    expect(r.heldout!.formDistance).toBe(0);
    expect(r.heldout!.noOverlapGap).toBe(0);
    expect(r.all.official!.items).toBe(2);
    // Pooled over histories by their items with evidence: conv-26 (user adopt puppy 2 of 3, time ana move 2 of 3)
    // and other (pet user 0 of 2).
    expect(r.all.generated.evidenceCoverage).toBeCloseTo((2 * (2 / 3) + 0) / 3);
    expect(r.byHistory).toHaveLength(2);
    expect(r.all.seed).toBeNull();
  });

  it('the difficulty gap is the seed’s mean context recall on generated validation items minus on official ones', () => {
    const scores = new Map<string, number>([
      [seedKey(generated[0]!), 1],
      [seedKey(generated[1]!), 0], // train: not part of the validation score
      [seedKey(generated[2]!), 0.5],
      [seedKey(official[0]!), 0.25],
      [seedKey(official[1]!), 0.75],
    ]);
    const r = calibrate(inputs, split, { design: 'seed.ts', contextRecall: scores });
    expect(r.all.seed).toMatchObject({ design: 'seed.ts', generatedVal: 0.75, generatedScored: 2, official: 0.5, officialScored: 2 });
    expect(r.all.seed!.gap).toBeCloseTo(0.25);
    // The whole set, training items too: (1 + 0 + 0.5) / 3 against 0.5.
    expect(r.all.seed).toMatchObject({ generatedAll: 0.5, generatedAllScored: 3, gapAll: 0 });
    expect(r.dev!.seed!.generatedVal).toBe(1);
    expect(r.dev!.seed!.official).toBe(0.25);
    expect(r.heldout!.seed!.gap).toBeCloseTo(0.5 - 0.75);
    // One scored item per set in each history: resampling within a history redraws the same score, so the
    // interval is the point (pooling the histories first would have made it wide).
    expect(r.dev!.seed!.gapInterval).toMatchObject({ lower: 0.75, upper: 0.75, level: 0.95 });
    expect(r.all.seed!.gapInterval!.lower).toBeCloseTo(0.25);
    expect(r.all.seed!.gapInterval!.upper).toBeCloseTo(0.25);
  });

  it('the gap interval narrows as more items are scored, and is the same on every run', () => {
    const many = (n: number) => {
      const gen = Array.from({ length: n }, (_, i) => item('conv-26', `g${i}`, 'When did the user adopt the puppy?', ['r1'], 'val'));
      const off = Array.from({ length: n }, (_, i) => item('conv-26', `o${i}`, 'What pet does the user have?', ['r1']));
      const scores = new Map<string, number>([
        ...gen.map((g, i) => [seedKey(g), i % 2] as [string, number]),
        ...off.map((o, i) => [seedKey(o), i % 4 === 0 ? 1 : 0] as [string, number]),
      ]);
      const one = [{ id: 'conv-26', recordText: text, generated: gen, official: off }];
      return [
        calibrate(one, split, { design: 'seed.ts', contextRecall: scores }),
        calibrate(one, split, { design: 'seed.ts', contextRecall: scores }),
      ] as const;
    };
    const [small, again] = many(20);
    const [large] = many(400);
    expect(small.all.seed!.gap).toBeCloseTo(0.25);
    expect(again.all.seed!.gapInterval).toEqual(small.all.seed!.gapInterval);
    const width = (r: typeof small) => r.all.seed!.gapInterval!.upper - r.all.seed!.gapInterval!.lower;
    // Two Bernoulli means (p = 0.5 and 0.25): the 95% interval is about ±1.96·√(0.25/n + 0.1875/n).
    expect(width(large)).toBeGreaterThan(0.08);
    expect(width(large)).toBeLessThan(0.15);
    expect(width(small)).toBeGreaterThan(2.5 * width(large));
    expect(large.all.seed!.gapInterval!.lower).toBeLessThan(0.25);
    expect(large.all.seed!.gapInterval!.upper).toBeGreaterThan(0.25);
  });
});

describe('meanDifferenceBootstrap', () => {
  it('skips empty strata, and refuses a sample with no scores at all', () => {
    const rng = createRng(3);
    const r = meanDifferenceBootstrap([[1, 1], []], [[0, 0, 0]], { rng, resamples: 50 });
    expect(r).toMatchObject({ mean: 1, lower: 1, upper: 1, nA: 2, nB: 3, resamples: 50 });
    expect(() => meanDifferenceBootstrap([[]], [[1]], { rng })).toThrow(/0 scores in a/);
  });
});
