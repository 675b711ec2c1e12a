import { describe, expect, it } from 'vitest';
import { diagnose, excerpt, FailureCaseSchema, sampleFailures, sampleRandomFailures } from '../src/diagnose/index.ts';
import type { SourceRecord } from '../sandbox/contract.ts';
import { qa, trace } from './fixtures/edits/qa-traces.ts';

const long = `${'x'.repeat(500)}Caroline went to the LGBTQ support group on 7 May 2023.${'y'.repeat(500)}`;
const records: SourceRecord[] = [
  { id: 'r1', kind: 'turn', text: 'Melanie: I painted a sunrise last year.', speaker: 'Melanie', time: '2023-05-08T13:56:00Z' },
  { id: 'r2', kind: 'turn', text: long, speaker: 'Caroline' },
  { id: 'r3', kind: 'turn', text: 'short one' },
];
const histories = [{ id: 'h1', records }];
const provenance = new Set(['r1', 'r2', 'r3']);

// 30 retrieval failures, 3 storage failures, 2 answering failures, 5 passes.
const items = [
  ...Array.from({ length: 30 }, (_, i) => qa(`ret${i}`, ['r2'])),
  ...Array.from({ length: 3 }, (_, i) => qa(`sto${i}`, ['r9'])),
  ...Array.from({ length: 2 }, (_, i) => qa(`ans${i}`, ['r1'])),
  ...Array.from({ length: 5 }, (_, i) => qa(`ok${i}`, ['r1'])),
];
const ranked = Array.from({ length: 15 }, (_, i) => `x${i}`);
const traces = [
  ...Array.from({ length: 30 }, (_, i) => trace(`ret${i}`, { ranked: [...ranked, 'r2'], delivered: ['r1', 'r3'] })),
  ...Array.from({ length: 3 }, (_, i) => trace(`sto${i}`, { delivered: ['r1'] })),
  ...Array.from({ length: 2 }, (_, i) => trace(`ans${i}`, { delivered: ['r1'], answer: 'a sunset' })),
  ...Array.from({ length: 5 }, (_, i) => trace(`ok${i}`, { delivered: ['r1'], correct: true })),
];
const d = diagnose(items, traces, provenance, { objective: 'accuracy' });

describe('excerpt', () => {
  it('keeps short texts whole and centres long ones on the span or quote', () => {
    expect(excerpt('short', { span: [0, 2] })).toBe('short');
    const at = long.indexOf('Caroline');
    const cut = excerpt(long, { span: [at, at + 55], maxChars: 100 });
    expect(cut).toContain('Caroline went to the LGBTQ support group on 7 May 2023.');
    expect(cut.startsWith('…') && cut.endsWith('…')).toBe(true);
    expect(cut.length).toBe(102);
    expect(excerpt(long, { quote: 'lgbtq support group', maxChars: 60 })).toContain('LGBTQ support group');
    expect(excerpt(long, { maxChars: 10 })).toBe('xxxxxxxxxx…');
    // A span longer than the window starts at the span.
    expect(excerpt(long, { span: [at, at + 200], maxChars: 20 })).toBe(`…${long.slice(at, at + 20)}…`);
  });
});

describe('sampleFailures', () => {
  it('caps each category so the frequent one cannot fill the budget', () => {
    const cases = sampleFailures(d, items, traces, histories, { perCategory: 5, seed: 1 });
    const by = (c: string) => cases.filter((x) => x.category === c).length;
    expect(by('retrieval')).toBe(5);
    expect(by('storage')).toBe(3);
    expect(by('answering')).toBe(2);
    expect(cases.map((c) => c.category).slice(0, 3)).toEqual(['storage', 'storage', 'storage']);
    for (const c of cases) expect(FailureCaseSchema.safeParse(c).success).toBe(true);
  });

  it('is reproducible with the seed and varies with it', () => {
    const ids = (seed: number) => sampleFailures(d, items, traces, histories, { perCategory: 5, seed }).map((c) => c.question);
    expect(ids(7)).toEqual(ids(7));
    expect(ids(7)).not.toEqual(ids(8));
  });

  it('carries what the proposer needs: question, reference, evidence excerpt, answer, ids and missing', () => {
    const [c] = sampleFailures(d, items, traces, histories, { perCategory: 1, seed: 3, categories: ['retrieval'], excerptChars: 80 });
    expect(c).toMatchObject({
      history: 'h1',
      category: 'retrieval',
      answer: 'an answer',
      delivered: ['r1', 'r3'],
      missing: ['r2'],
      f1: 0,
    });
    expect(c!.text).toBe(`question ${c!.question}?`);
    expect(c!.reference).toBe(`answer ${c!.question}`);
    expect(c!.ranked).toEqual(ranked.slice(0, 10));
    expect(c!.evidence).toHaveLength(1);
    expect(c!.evidence[0]).toMatchObject({ record: 'r2', speaker: 'Caroline', delivered: false, recoverable: true, rank: 16 });
    expect(c!.evidence[0]!.excerpt.length).toBeLessThanOrEqual(82);

    const [s] = sampleFailures(d, items, traces, histories, { perCategory: 1, seed: 3, categories: ['storage'] });
    expect(s!.evidence[0]).toMatchObject({ record: 'r9', excerpt: '(record not found in the history)', recoverable: false, rank: null });
    const [a] = sampleFailures(d, items, traces, histories, { perCategory: 1, seed: 3, categories: ['answering'] });
    expect(a!.evidence[0]).toMatchObject({ excerpt: records[0]!.text, time: '2023-05-08T13:56:00Z', delivered: true });
    expect(a!.answer).toBe('a sunset');
  });

  it('lists what was ranked above the missing evidence instead, with its session, speaker and time', () => {
    const hist = [
      { id: 'h1', records: [...records, { id: 'x0', kind: 'turn' as const, text: 'A distractor.', speaker: 'Ben', thread: 's9' }] },
    ];
    const [c] = sampleFailures(d, items, traces, hist, { perCategory: 1, seed: 3, categories: ['retrieval'], insteadCount: 3 });
    // r2 is ranked 16th: the three best-ranked records above it, none of them evidence.
    expect(c!.instead.map((i) => [i.record, i.rank])).toEqual([
      ['x0', 1],
      ['x1', 2],
      ['x2', 3],
    ]);
    expect(c!.instead[0]).toMatchObject({ excerpt: 'A distractor.', speaker: 'Ben', thread: 's9' });
    expect(c!.instead[1]!.excerpt).toBe('(record not found in the history)');
    // Evidence delivered (an answering failure): nothing was ranked instead of a missing record, so the top is listed.
    const [a] = sampleFailures(d, items, traces, hist, { perCategory: 1, seed: 3, categories: ['answering'] });
    expect(a!.instead.map((i) => i.record)).not.toContain('r1');
  });
});

describe('sampleRandomFailures', () => {
  it('samples failures uniformly, so frequent categories dominate', () => {
    const cases = sampleRandomFailures(d, items, traces, (h, id) => (h === 'h1' ? records.find((r) => r.id === id) : undefined), {
      count: 10,
      seed: 2,
    });
    expect(cases).toHaveLength(10);
    expect(cases.every((c) => c.category !== ('pass' as string))).toBe(true);
    expect(new Set(cases.map((c) => c.question)).size).toBe(10);
    // Over many seeds, retrieval (30 of 35 failures) takes ~86% of the samples.
    let ret = 0;
    for (let seed = 0; seed < 50; seed++)
      ret += sampleRandomFailures(d, items, traces, histories, { count: 10, seed }).filter((c) => c.category === 'retrieval').length;
    expect(ret / 500).toBeGreaterThan(0.8);
    expect(ret / 500).toBeLessThan(0.92);
  });
});
