/**
 * The search's decisions replayed on official scores: each kept or dropped proposal against its parent, with the
 * official change judged by its paired standard error, summed per move.
 */
import { describe, expect, it } from 'vitest';
import { officialVerdict, searchDecisions } from '../src/experiments/fidelity-decisions.ts';
import type { FidelityCandidate } from '../src/experiments/fidelity-schema.ts';

function candidate(id: string, parent: string | null, status: string, valFitness: number, extra: Partial<FidelityCandidate> = {}) {
  return {
    id,
    iteration: 0,
    kind: parent ? 'proposal' : 'seed',
    status,
    contentHash: `hash-${id}`,
    parent,
    proposer: parent ? `move-${id}` : 'seed',
    valFitness,
    official: null,
    sameAs: null,
    error: null,
    ...extra,
  } satisfies FidelityCandidate;
}

const scores = (xs: number[]) => new Map(xs.map((x, i) => [`q${i}`, x]));

describe('officialVerdict', () => {
  it('is the mean paired difference with its standard error', () => {
    const v = officialVerdict([1, 0, 1, 0]);
    expect(v.delta).toBe(0.5);
    // sample variance 1/3, over 4 questions
    expect(v.se).toBeCloseTo(Math.sqrt(1 / 3 / 4), 12);
    // 0.5 is within 1.96 × 0.289 of zero; twice the questions with the same spread tell it apart
    expect(v.verdict).toBe('unclear');
    expect(officialVerdict([1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0]).verdict).toBe('better');
  });
  it('cannot tell a change within 1.96 standard errors of zero, or no questions', () => {
    expect(officialVerdict([1, -1, 1, -1, 1]).verdict).toBe('unclear');
    expect(officialVerdict([0, 0, 0]).verdict).toBe('unclear');
    expect(officialVerdict([])).toEqual({ delta: 0, se: 0, verdict: 'unclear' });
  });
  it('calls a change on every question alike better or worse, however small', () => {
    expect(officialVerdict([-0.01, -0.01]).verdict).toBe('worse');
    expect(officialVerdict([0.2]).verdict).toBe('better');
  });
});

describe('searchDecisions', () => {
  const seed = candidate('s', null, 'accepted', 0.5);
  // kept and officially better on every question: confirmed
  const good = candidate('a', 's', 'accepted', 0.6, { proposer: 'bridges' });
  // dropped but officially better: contradicted
  const missed = candidate('b', 'a', 'rejected', 0.55, { proposer: 'packing' });
  // kept but officially worse: contradicted
  const wrong = candidate('c', 'a', 'accepted', 0.7, { proposer: 'packing' });
  // dropped, official change unclear
  const flat = candidate('d', 'c', 'rejected', 0.65, { proposer: 'bridges' });
  // same source as its parent: no decision to judge
  const twin = candidate('e', 'c', 'rejected', 0.7, { contentHash: 'hash-c', sameAs: 'c' });
  // not decided (the run stopped before its decision), and one whose parent never compiled
  const open = candidate('f', 'c', 'evaluated', 0.8);
  const orphan = candidate('g', 'x', 'rejected', 0.1);
  const perQuestion = new Map([
    ['s', scores([0, 0, 0, 0])],
    ['a', scores([0.5, 0.5, 0.5, 0.5])],
    ['b', scores([1, 1, 1, 1])],
    ['c', scores([0, 0, 0, 0.5])],
    ['d', scores([1, 0, 0, 0])],
    ['f', scores([1, 1, 1, 1])],
    ['g', scores([1, 1, 1, 1])],
  ]);
  const report = searchDecisions([seed, good, missed, wrong, flat, twin, open, orphan], perQuestion);

  it('judges every decided proposal against its parent, in search order', () => {
    expect(report.decisions.map((d) => [d.id, d.parent, d.accepted, d.official, d.agrees])).toEqual([
      ['a', 's', true, 'better', true],
      ['b', 'a', false, 'better', false],
      ['c', 'a', true, 'worse', false],
      ['d', 'c', false, 'unclear', null],
    ]);
    const c = report.decisions[2]!;
    expect(c.valDelta).toBeCloseTo(0.1, 12);
    expect(c.officialDelta).toBeCloseTo(-0.375, 12);
    expect([report.agree, report.disagree, report.unclear]).toEqual([1, 2, 1]);
  });

  it('sums per move, the most contradicted first, with the official effect pooled per question', () => {
    expect(report.byMove).toEqual([
      {
        move: 'packing',
        decisions: 2,
        accepted: 1,
        agree: 0,
        disagree: 2,
        meanValDelta: expect.closeTo(0.025, 12),
        meanOfficialDelta: 0.0625,
        // per question the mean of its two decisions' differences: 0, 0, 0, 0.25, within 1.96 × 0.0625 of zero
        officialSe: expect.closeTo(0.0625, 12),
        official: 'unclear',
        against: false,
      },
      {
        move: 'bridges',
        decisions: 2,
        accepted: 1,
        agree: 1,
        disagree: 0,
        meanValDelta: expect.closeTo(0.025, 12),
        meanOfficialDelta: 0.3125,
        // 0.75, 0.25, 0.25, 0: 0.3125 against a standard error of 0.157
        officialSe: expect.closeTo(Math.sqrt(0.296875 / 3 / 4), 12),
        official: 'better',
        against: false,
      },
    ]);
  });

  it("splits each move's pooled official change by category of the official questions, adding up to it", () => {
    const byCategory = searchDecisions([seed, good, missed, wrong, flat, twin, open, orphan], perQuestion, {
      officialCategoryOf: (k) => (k === 'q0' || k === 'q1' ? 'single-hop' : k === 'q2' ? 'temporal' : undefined),
    });
    const bridges = byCategory.byMove.find((m) => m.move === 'bridges')!;
    // pooled per question 0.75, 0.25, 0.25, 0: single-hop 1/4, temporal 0.25/4, the question without a category unchanged
    expect(bridges.officialByCategory).toEqual([
      { group: 'single-hop', items: 2, share: expect.closeTo(0.25, 12) },
      { group: 'temporal', items: 1, share: expect.closeTo(0.0625, 12) },
    ]);
    expect(bridges.officialByCategory!.reduce((sum, g) => sum + g.share, 0)).toBeCloseTo(bridges.meanOfficialDelta, 12);
    // packing: 0, 0, 0, 0.25 on the fourth question, which has no category
    expect(byCategory.byMove.find((m) => m.move === 'packing')!.officialByCategory).toEqual([
      { group: 'unknown', items: 1, share: expect.closeTo(0.0625, 12) },
    ]);
    expect(report.byMove[0]).not.toHaveProperty('officialByCategory');
  });

  it('puts first a move validation marks down while the official questions, pooled, mark it up', () => {
    const base = candidate('p', null, 'accepted', 0.5);
    const one = candidate('q1', 'p', 'rejected', 0.45, { proposer: 'prf' });
    const two = candidate('q2', 'p', 'rejected', 0.47, { proposer: 'prf' });
    const other = candidate('q3', 'p', 'rejected', 0.4, { proposer: 'diversity' });
    const r = searchDecisions(
      [base, one, two, other],
      new Map([
        ['p', scores([0, 0, 0, 0])],
        ['q1', scores([0.2, 0.1, 0.2, 0.1])],
        ['q2', scores([0.1, 0.2, 0, 0.1])],
        ['q3', scores([1, 1, 1, 1])],
      ]),
    );
    // both are marked against validation; the one with a contradicted decision of its own comes first
    expect(r.byMove.map((m) => [m.move, m.official, m.against, m.disagree])).toEqual([
      ['prf', 'better', true, 2],
      ['diversity', 'better', true, 1],
    ]);
    expect(r.byMove[0]!.meanValDelta).toBeCloseTo(-0.04, 12);
  });

  it("reads a twin's official scores from its original", () => {
    const twinChild = candidate('h', 'e', 'rejected', 0.6);
    const r = searchDecisions([wrong, twin, twinChild], new Map([...perQuestion, ['h', scores([0, 0, 0, 0])]]));
    expect(r.decisions.map((d) => [d.id, d.parent, d.officialDelta])).toEqual([['h', 'e', -0.125]]);
  });

  describe("where a move's validation change came from", () => {
    const base = candidate('p', null, 'accepted', 0.5);
    const one = candidate('q1', 'p', 'rejected', 0.45, { proposer: 'prf' });
    const two = candidate('q2', 'p', 'rejected', 0.5, { proposer: 'prf' });
    // a twin of q2, decided against q1: its validation scores are q2's
    const twinOfTwo = candidate('q3', 'q1', 'rejected', 0.5, { proposer: 'fusion', contentHash: 'hash-q2', sameAs: 'q2' });
    const official = new Map([
      ['p', scores([0, 0, 0, 0])],
      ['q1', scores([0, 0, 0, 0])],
      ['q2', scores([0, 0, 0, 0])],
    ]);
    // items v0, v1 of template "when", v2 of "cue", v3 of "count"
    const validation = {
      perItem: new Map([
        ['p', scores([0.5, 0.5, 0.5, 0.5])],
        ['q1', scores([0.3, 0.5, 0.2, 0.5])],
        ['q2', scores([0.1, 0.9, 0.5, 0.5])],
      ]),
      templateOf: (k: string) => ({ q0: 'when', q1: 'when', q2: 'cue' })[k],
    };
    const r = searchDecisions([base, one, two, twinOfTwo], official, { validation });
    const byMove = new Map(r.byMove.map((m) => [m.move, m]));

    it('splits it by template, the largest share first, and the shares add up to the mean change', () => {
      // per item, pooled over prf's two decisions: −0.3, +0.2, −0.15, 0; "when" −0.1/4, "cue" −0.15/4; count unchanged
      const prf = byMove.get('prf')!;
      expect(prf.valByTemplate).toEqual([
        { group: 'cue', items: 1, share: expect.closeTo(-0.0375, 12) },
        { group: 'when', items: 2, share: expect.closeTo(-0.025, 12) },
      ]);
      const total = prf.valByTemplate!.reduce((sum, t) => sum + t.share, 0);
      // the validation fitness here is not the items' mean, but the split is of the items' change
      expect(total).toBeCloseTo(-0.0625, 12);
    });

    it("reads a twin's items from its original, and names an item with no template unknown", () => {
      // q2's items against q1's: −0.2, +0.4, +0.3, 0
      expect(byMove.get('fusion')!.valByTemplate).toEqual([
        { group: 'cue', items: 1, share: expect.closeTo(0.075, 12) },
        { group: 'when', items: 2, share: expect.closeTo(0.05, 12) },
      ]);
      expect(
        searchDecisions([base, one], official, { validation: { ...validation, templateOf: () => undefined } }).byMove[0]!.valByTemplate,
      ).toEqual([{ group: 'unknown', items: 4, share: expect.closeTo(-0.125, 12) }]);
    });

    it('is left out when a decision has no per-item validation scores', () => {
      const partial = { ...validation, perItem: new Map([...validation.perItem].filter(([id]) => id !== 'q2')) };
      expect(searchDecisions([base, one, two], official, { validation: partial }).byMove[0]!.valByTemplate).toBeUndefined();
      expect(searchDecisions([base, one], official).byMove[0]).not.toHaveProperty('valByTemplate');
    });
  });
});
