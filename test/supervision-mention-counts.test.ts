import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { checkPlan } from '../src/supervision/plan-checks.ts';
import { checkQuestion, offeredChoice } from '../src/supervision/question-checks.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { turn } from './helpers/turn.ts';
import {
  mentionCompareQuestion,
  mentionCountQuestion,
  multiEvidenceShare,
  namesSomeone,
  sessionCount,
} from '../src/supervision/rule-based/mention-counts.ts';
import { createRng } from '../src/supervision/rng.ts';

const say = (id: string, time: string, thread: string, text: string, speaker = 'Ana'): SourceRecord =>
  turn(id, speaker, time, thread, text);

// Frau Lehmann comes up in three May sessions (twice in s2), once in June; Ben talks with Ana throughout.
const records: SourceRecord[] = [
  say('s1:1', '2024-05-02T09:00:00', 's1', 'I bought wild garlic from Frau Lehmann at the market.'),
  say('s1:2', '2024-05-02T09:00:00', 's1', 'Sounds tasty. Did you cook with it?', 'Ben'),
  say('s2:1', '2024-05-10T09:00:00', 's2', 'Ben, the bike needs a new chain before Saturday.'),
  say('s2:2', '2024-05-10T09:00:00', 's2', 'Frau Lehmann gave me some basil as well.'),
  say('s2:3', '2024-05-10T09:00:00', 's2', 'I thanked Frau Lehmann again for the basil.'),
  say('s3:1', '2024-05-20T09:00:00', 's3', 'The radishes from Frau Lehmann were crisp this week.'),
  say('s4:1', '2024-05-28T09:00:00', 's4', 'I repaired the lamp in the hallway on Sunday.'),
  say('s5:1', '2024-06-03T09:00:00', 's5', 'Frau Lehmann was away, so I went to another stall.'),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const at = (id: string): number => graph.index.get(id)!;

describe('counts over sessions (mention-counts.ts)', () => {
  it('counts the conversations of the month naming a person, one record of each as evidence, and the blind reader agrees', async () => {
    const c = mentionCountQuestion(ctx, at('s1:1'), 'Frau Lehmann');
    expect(c).toBeDefined();
    expect(c!.question).toBe('In how many conversations in May 2024 did Frau Lehmann come up?');
    expect(c!.plan.answer).toBe('3');
    expect(c!.plan.answerType).toBe('number');
    // the first naming turn of each conversation; the second one of s2 and June's are not cited
    expect(c!.plan.evidence.map((e) => e.record)).toEqual(['s1:1', 's2:2', 's3:1']);
    const byId = new Map(records.map((r) => [r.id, r]));
    const pc = checkPlan(c!.plan, { bundle: new Set(byId.keys()), records: byId, allowedTypes: new Set(['aggregation']) });
    expect(pc.ok).toBe(true);
    expect(checkQuestion(c!.question, c!.plan.answer, c!.plan.answerType, [...byId.keys()]).ok).toBe(true);
    const reading = await createOfflineBlindReader().read({ question: c!.question, answerType: 'number', records });
    const check = checkBlindReading(reading, { answer: '3', answerType: 'number', evidenceRecords: ['s1:1', 's2:2', 's3:1'] });
    expect(check.ok).toBe(true);
  });

  it('widens a month with too few such conversations to its quarter, and refuses one-off names', () => {
    // June alone has one conversation naming her; June–August has one too: no count question
    expect(mentionCountQuestion(ctx, at('s5:1'), 'Frau Lehmann')).toBeUndefined();
    const extra = [
      ...records,
      say('s6:1', '2024-07-04T09:00:00', 's6', 'Frau Lehmann is back at her stall.'),
      say('s7:1', '2024-08-09T09:00:00', 's7', 'Frau Lehmann had the first plums.'),
    ];
    const g = buildRecordGraph(extra);
    const c = mentionCountQuestion(createRuleContext(g), g.index.get('s5:1')!, 'Frau Lehmann');
    expect(c?.question).toBe('In how many conversations between June and August 2024 did Frau Lehmann come up?');
    expect(c?.plan.answer).toBe('3');
    expect(mentionCountQuestion(ctx, at('s4:1'), 'Sunday')).toBeUndefined();
  });

  it('compares two named things of a period by their conversations, citing every conversation of both', async () => {
    // Herr Vogel comes up in one May conversation, Frau Lehmann in three: a two-conversation lead.
    const withRival = records.map((r) => (r.id === 's4:1' ? { ...r, text: 'I bought basil from Herr Vogel at the market on Sunday.' } : r));
    const g = buildRecordGraph(withRival);
    const c2 = createRuleContext(g);
    const asked = new Set<string>();
    for (let seed = 1; seed <= 16; seed++) {
      const c = mentionCompareQuestion(c2, g.index.get('s1:1')!, 'Frau Lehmann', createRng(seed));
      expect(c).toBeDefined();
      asked.add(c!.question);
      expect(c!.template).toBe('mention-compare');
      expect(c!.plan.answer).toBe('Frau Lehmann');
      expect(c!.plan.evidence.map((e) => e.record).sort()).toEqual(['s1:1', 's2:2', 's3:1', 's4:1']);
      const byId = new Map(withRival.map((r) => [r.id, r]));
      expect(checkPlan(c!.plan, { bundle: new Set(byId.keys()), records: byId, allowedTypes: new Set(['aggregation']) }).ok).toBe(true);
      // Naming the answer among the options is the question's form, not a leak.
      expect(checkQuestion(c!.question, c!.plan.answer, 'text', [...byId.keys()]).ok).toBe(true);
      const reading = await createOfflineBlindReader().read({ question: c!.question, answerType: 'text', records: withRival });
      expect(reading.answer).toBe('Frau Lehmann');
      expect(
        checkBlindReading(reading, { answer: 'Frau Lehmann', answerType: 'text', evidenceRecords: ['s1:1', 's2:2', 's3:1', 's4:1'] }).ok,
      ).toBe(true);
    }
    // The options come in both orders, so the answer is not given away by its place.
    expect(asked).toEqual(
      new Set([
        'Which came up in more conversations in May 2024, Frau Lehmann or Herr Vogel?',
        'Which came up in more conversations in May 2024, Herr Vogel or Frau Lehmann?',
      ]),
    );
    // A named thing of another kind (nothing said around it is said around her) is not compared with her.
    const unlike = records.map((r) =>
      r.id === 's4:1' ? { ...r, text: 'I asked Herr Vogel to fix the lamp in the hallway on Sunday.' } : r,
    );
    const gu = buildRecordGraph(unlike);
    expect(mentionCompareQuestion(createRuleContext(gu), gu.index.get('s1:1')!, 'Frau Lehmann', createRng(1))).toBeUndefined();
    // No other named thing of May: no comparison. The rival itself is never the one asked about (a one-conversation name).
    expect(mentionCompareQuestion(ctx, at('s1:1'), 'Frau Lehmann', createRng(1))).toBeUndefined();
    expect(mentionCompareQuestion(c2, g.index.get('s4:1')!, 'Herr Vogel', createRng(1))).toBeUndefined();
    expect(offeredChoice('Which came up more, Ben or Frau Lehmann?', 'Frau Lehmann')).toBe(true);
    expect(offeredChoice('Which stall did Frau Lehmann run?', 'Frau Lehmann')).toBe(false);
    expect(offeredChoice('Which came up more, Lehmann or Frau Lehmann?', 'Lehmann')).toBe(false);
    expect(checkQuestion('Which stall did Frau Lehmann run?', 'Frau Lehmann', 'text', []).ok).toBe(false);
    // A tie is no answer for the reader.
    const tie = await createOfflineBlindReader().read({
      question: 'Which came up in more conversations in May 2024, Herr Vogel or Ben?',
      answerType: 'text',
      records: withRival,
    });
    expect(tie.answerable).toBe(false);
  });

  it('counts named things only: not the speakers, months, weekdays or acronyms', () => {
    expect(namesSomeone(ctx, 'Frau Lehmann')).toBe(true);
    expect(namesSomeone(ctx, 'Ben')).toBe(false);
    expect(namesSomeone(ctx, 'Feb')).toBe(false);
    expect(namesSomeone(ctx, 'Sunday')).toBe(false);
    expect(namesSomeone(ctx, 'USB')).toBe(false);
    // a nationality word is never a phrase's head here
    expect(namesSomeone(ctx, 'Ethiopian')).toBe(false);
    expect(mentionCountQuestion(ctx, at('s2:1'), 'Ben')).toBeUndefined();
  });

  it('asks counts only of long histories: the share grows with the number of conversations', () => {
    expect(sessionCount(ctx)).toBe(5);
    expect(multiEvidenceShare(ctx)).toBe(0);
    const long = Array.from({ length: 60 }, (_, k) =>
      say(`t${k}`, `2024-${String(1 + (k % 12)).padStart(2, '0')}-05T09:00:00`, `c${k}`, 'I walked to the market.'),
    );
    const mid = createRuleContext(buildRecordGraph(long.slice(0, 42)));
    const top = createRuleContext(buildRecordGraph(long));
    expect(multiEvidenceShare(mid)).toBeGreaterThan(0);
    expect(multiEvidenceShare(mid)).toBeLessThan(multiEvidenceShare(top));
    expect(multiEvidenceShare(top)).toBe(0.7);
  });
});
