import { describe, expect, it } from 'vitest';
import type { QAItem } from '../src/history/record.ts';
import { holdGapToTarget } from '../src/supervision/gap-target.ts';
import { defaultGapTarget, DEFAULT_GAP_TARGETS } from '../src/supervision/rule-based/lexical-gap.ts';

const records = new Map([
  ['r1', 'I adopted a puppy from the shelter last spring.'],
  ['r2', 'We painted the lake at sunrise with my sister.'],
]);
const text = (id: string) => records.get(id);

/** A rephrased item (no word shared with r1) whose original wording copies the evidence. */
function rephrased(id: string, original = 'What did Ana adopt from the shelter?'): QAItem {
  return {
    id,
    history: 'h',
    question: 'What pet does Ana have?',
    answer: 'a puppy',
    answerType: 'text',
    evidence: [{ record: 'r1' }],
    checks: {
      blindReader: 'reader+wordnet',
      blindAnswer: 'a puppy',
      lexicalGap: 'hypernym: adopt → have',
      originalQuestion: original,
      originalBlindAnswer: 'a puppy!',
    },
  };
}
function plain(id: string, question = 'When did Ana paint the lake?'): QAItem {
  return { id, history: 'h', question, answer: 'sunrise', answerType: 'date', evidence: [{ record: 'r2' }], checks: {} };
}

describe('holding the no-overlap share to a target', () => {
  const items = [...Array.from({ length: 6 }, (_, i) => rephrased(`g${i}`)), ...Array.from({ length: 4 }, (_, i) => plain(`p${i}`))];

  it('restores the fewest rephrased items that bring the share to the target, with their own blind answer', () => {
    const { items: out, report } = holdGapToTarget(items, 0.2, text, { seed: 's', reader: 'reader' });
    expect(report).toEqual({ target: 0.2, rephrased: 6, restored: 4, noOverlapShare: 0.2 });
    const back = out.filter((it) => it.checks?.lexicalGapHeldBack !== undefined);
    expect(back).toHaveLength(4);
    for (const it of back) {
      expect(it.question).toBe('What did Ana adopt from the shelter?');
      expect(it.checks).toMatchObject({ blindReader: 'reader', blindAnswer: 'a puppy!', lexicalGapHeldBack: 'hypernym: adopt → have' });
      expect(it.checks).not.toHaveProperty('originalQuestion');
      expect(it.checks).not.toHaveProperty('lexicalGap');
    }
    // Answers, evidence and order never change.
    expect(out.map((it) => [it.id, it.answer, it.evidence])).toEqual(items.map((it) => [it.id, it.answer, it.evidence]));
  });

  it('never raises the share, and leaves a set already at or below the target alone', () => {
    expect(holdGapToTarget(items, 0.9, text, { seed: 's', reader: 'reader' }).items).toEqual(items);
    expect(holdGapToTarget(items, 0.6, text, { seed: 's', reader: 'reader' }).report.restored).toBe(0);
  });

  it('restores an item only when its original passed the blind reader too', () => {
    const locked = items.map((it) => {
      const { originalBlindAnswer: _, ...checks } = it.checks ?? {};
      return { ...it, checks };
    });
    const { report } = holdGapToTarget(locked, 0, text, { seed: 's', reader: 'reader' });
    expect(report).toMatchObject({ restored: 0, noOverlapShare: 0.6 });
  });

  it('picks the same items whatever order they come in, and other items under another seed', () => {
    const chosen = (list: QAItem[], seed: string) =>
      holdGapToTarget(list, 0.3, text, { seed, reader: 'reader' })
        .items.filter((it) => it.checks?.lexicalGapHeldBack !== undefined)
        .map((it) => it.id)
        .sort();
    const a = chosen(items, 's');
    expect(chosen([...items].reverse(), 's')).toEqual(a);
    const others = ['t', 'u', 'v', 'w'].map((seed) => chosen(items, seed).join());
    expect(others.some((o) => o !== a.join())).toBe(true);
  });

  it('keeps partial rephrasings, and originals that share no word either', () => {
    const partial = rephrased('x');
    partial.question = 'What pet did Ana adopt?'; // still shares "adopt" with r1
    const gapless = rephrased('y', 'What pet has Ana got?'); // the original shares no word with r1 either
    const full = rephrased('z');
    const { items: out, report } = holdGapToTarget([partial, gapless, full], 0, text, { seed: 's', reader: 'reader' });
    expect(report).toEqual({ target: 0, rephrased: 3, restored: 1, noOverlapShare: 1 / 3 });
    expect(out.map((it) => it.question)).toEqual([
      'What pet did Ana adopt?',
      'What pet does Ana have?',
      'What did Ana adopt from the shelter?',
    ]);
  });
});

describe('the calibrated default targets', () => {
  it('differ by kind of history', () => {
    expect(defaultGapTarget(false)).toBe(DEFAULT_GAP_TARGETS.conversation);
    expect(defaultGapTarget(true)).toBe(DEFAULT_GAP_TARGETS.userAssistant);
    expect(DEFAULT_GAP_TARGETS.userAssistant).toBeLessThan(DEFAULT_GAP_TARGETS.conversation);
  });
});
