import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { BlindReader } from '../src/supervision/blind-recovery.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { createSituating } from '../src/supervision/rule-based/situation.ts';
import { turn } from './helpers/turn.ts';

const ua = (id: string, time: string, user: string): SourceRecord => ({
  id,
  kind: 'turn',
  time,
  thread: id.split(':')[0]!,
  text: `User: ${user}\nAssistant: Noted.`,
});
const day = [
  ua('K:1', '2024-05-04T09:00:00', 'This morning I repaired the rear tire with the iFixit kit.'),
  ua('K:2', '2024-05-04T12:00:00', 'This afternoon I bought some wild garlic at the market.'),
  ua('L:1', '2024-05-09T09:00:00', 'I visited the Humboldt Forum with Leila.'),
];
const graph = buildRecordGraph(day);
const ctx = createRuleContext(graph);
const always = createSituating(ctx, graph, 1);

describe('placing a question in its day', () => {
  it('adds another thing the user did in the same conversation, from a record that is not evidence', () => {
    const s = always.situate('Which kit did I use?', ['K:1'], createRng(1));
    expect(s).toEqual({
      question: expect.stringMatching(/^Which kit did I use, (?:the same day I|the day I also|on the day I) bought some wild garlic\?$/),
      phrase: 'bought some wild garlic',
      record: 'K:2',
    });
  });

  it('never for yes/no or a choice, evidence across conversations, or a situation repeating the question', () => {
    expect(always.situate('Did I repair the rear tire?', ['K:1'], createRng(1))).toBeUndefined();
    expect(always.situate('Which came up more, A or B?', ['K:1'], createRng(1))).toBeUndefined();
    expect(always.situate('Which kit did I use?', ['K:1', 'L:1'], createRng(1))).toBeUndefined();
    expect(always.situate('Where did I buy the wild garlic?', ['K:1'], createRng(1))).toBeUndefined();
    // Nothing else said in that conversation.
    expect(always.situate('Which place did I visit?', ['L:1'], createRng(1))).toBeUndefined();
  });

  it('only in a user’s own history, and at its share', () => {
    const chat = [
      turn('S:1', 'Ana', '2024-05-04T09:00:00', 's', 'This morning I repaired the rear tire.'),
      turn('S:2', 'Ana', '2024-05-04T10:00:00', 's', 'This afternoon I bought some wild garlic.'),
    ];
    const g = buildRecordGraph(chat);
    expect(createSituating(createRuleContext(g), g, 1).situate('Which tire did Ana repair?', ['S:1'], createRng(1))).toBeUndefined();
    const never = createSituating(ctx, graph, 0);
    expect(never.situate('Which kit did I use?', ['K:1'], createRng(1))).toBeUndefined();
    const half = createSituating(ctx, graph, 0.5);
    const rng = createRng(7);
    const placed = Array.from({ length: 200 }, () => half.situate('Which kit did I use?', ['K:1'], rng)).filter(Boolean).length;
    expect(placed).toBeGreaterThan(70);
    expect(placed).toBeLessThan(130);
  });

  it('the blind reader reads the question without its situation', async () => {
    const seen: string[] = [];
    const base: BlindReader = {
      name: 'fake',
      async read(input) {
        seen.push(input.question);
        return { answerable: true, answer: 'iFixit kit', citations: ['K:1'] };
      },
    };
    const reader = always.reader(base);
    expect(reader.name).toBe('fake+situation@1');
    for (const lead of ['the same day I', 'the day I also', 'on the day I'])
      await reader.read({ question: `Which kit did I use, ${lead} bought some wild garlic?`, answerType: 'text', records: day });
    expect(seen).toEqual(['Which kit did I use?', 'Which kit did I use?', 'Which kit did I use?']);
  });
});

describe('the offline generator places questions in their day', () => {
  it('on the embedded persona: situated items name another record of the evidence’s conversation, gated and noted', async () => {
    const [h] = await loadHistories(DEFAULT_SOURCE);
    const { items } = await generateSupervision(h!, { mode: 'offline', n: 60, seed: 1 });
    const g = buildRecordGraph(h!.records);
    const situated = items.filter((it) => typeof it.checks?.situation === 'string');
    expect(situated.length).toBeGreaterThan(3);
    expect(situated.length).toBeLessThan(items.length);
    for (const it of situated) {
      const c = it.checks!;
      expect(it.question).toMatch(/, (?:the same day I|the day I also|on the day I) [^?]+\?$/);
      expect(it.question.startsWith(String(c.unsituatedQuestion).slice(0, -1))).toBe(true);
      expect(it.question.endsWith(`${c.situation}?`)).toBe(true);
      expect(String(c.blindReader)).toMatch(/\+situation@1$/);
      const record = String(c.situationRecord);
      expect(it.evidence.map((e) => e.record)).not.toContain(record);
      const thread = g.threadOf[g.index.get(record)!];
      for (const e of it.evidence) expect(g.threadOf[g.index.get(e.record)!]).toBe(thread);
    }
  });
});
