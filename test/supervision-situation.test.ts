import { describe, expect, it } from 'vitest';
import type { BlindReader } from '../src/supervision/blind-recovery.ts';
import { DEFAULT_SOURCE } from '../src/history/default-source.ts';
import { loadHistories } from '../src/history/load.ts';
import { resolveDates } from '../src/text/resolve-dates.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { createSituating } from '../src/supervision/rule-based/situation.ts';
import { turn, userTurn } from './helpers/turn.ts';

const ua = userTurn;
const day = [
  ua('K:1', '2024-05-04T09:00:00', 'This morning I repaired the rear tire with the iFixit kit.'),
  ua('K:2', '2024-05-04T12:00:00', 'This afternoon I bought some wild garlic at the market.'),
  ua('L:1', '2024-05-09T09:00:00', 'I visited the Humboldt Forum with Leila.'),
];
const graph = buildRecordGraph(day);
const ctx = createRuleContext(graph);
const always = createSituating(ctx, graph, 1, 1);
const item = (question: string, evidence: string[], answer = 'iFixit kit', answerType: 'text' | 'date' = 'text') => ({
  question,
  answer,
  answerType,
  evidence,
});

describe('placing a question in its day', () => {
  it('adds another thing the user did in the same conversation, from a record that is not evidence', () => {
    const s = always.situate(item('Which kit did I use?', ['K:1']), createRng(1));
    expect(s).toEqual({
      question: expect.stringMatching(/^Which kit did I use, (?:the same day I|the day I also|on the day I) bought some wild garlic\?$/),
      phrase: 'bought some wild garlic',
      record: 'K:2',
    });
  });

  it('puts it in place of the date a question named, in the user’s own voice', () => {
    const s = always.situate(
      item('After the user talked about the tire on 4 May 2024, which kit did the assistant mention?', ['K:1']),
      createRng(1),
    );
    expect(s?.question).toMatch(
      /^After I talked about the tire (?:on the day I|the same day I) bought some wild garlic, which kit did you mention\?$/,
    );
    const m = always.situate(item('What kit did the assistant mention in May 2024?', ['K:1']), createRng(2));
    expect(m?.question).toMatch(/^What kit did you mention (?:on the day I|the same day I) bought some wild garlic\?$/);
    // Two dates, or another time named besides the date phrase, are left as they are.
    expect(always.situate(item('What kit did I use on 4 May 2024 and in May 2024?', ['K:1']), createRng(1))).toBeUndefined();
    expect(always.situate(item('What kit did I use in 2024?', ['K:1']), createRng(1))).toBeUndefined();
  });

  it('places a day asked for by another day, before or after it, never by the same day', () => {
    const s = always.situate(item('When did I repair the rear tire?', ['K:1'], '4 May 2024', 'date'), createRng(1));
    expect(s).toEqual({
      question: expect.stringMatching(/^When did I repair the rear tire, (?:some time )?before I visited the Humboldt Forum\?$/),
      phrase: 'visited the Humboldt Forum',
      record: 'L:1',
    });
    const a = always.situate(item('On which day did the user talk about the Humboldt Forum?', ['L:1'], '9 May 2024', 'date'), createRng(1));
    expect(a?.question).toMatch(
      /^On which day did I talk about the Humboldt Forum, (?:some time )?after I (?:repaired the rear tire|bought some wild garlic)\?$/,
    );
    // The month a question names narrows the day; the other day is placed beside it. A full date would give it away.
    const m = always.situate(
      item('On which day in May 2024 did the user talk about the Humboldt Forum?', ['L:1'], '9 May 2024', 'date'),
      createRng(1),
    );
    expect(m?.question).toMatch(/^On which day in May 2024 did I talk about the Humboldt Forum, (?:some time )?after I /);
    expect(
      always.situate(item('When on 9 May 2024 did I visit the Humboldt Forum?', ['L:1'], '9 May 2024', 'date'), createRng(1)),
    ).toBeUndefined();
    // Only a day: a month answer cannot be ordered against a day.
    expect(always.situate(item('When did I repair the rear tire?', ['K:1'], 'May 2024', 'date'), createRng(1))).toBeUndefined();
  });

  it('never for yes/no, a choice, evidence across conversations, or a situation repeating the question', () => {
    expect(always.situate(item('Did I repair the rear tire?', ['K:1']), createRng(1))).toBeUndefined();
    expect(always.situate(item('Which came up more, A or B?', ['K:1']), createRng(1))).toBeUndefined();
    expect(always.situate(item('Which kit did I use?', ['K:1', 'L:1']), createRng(1))).toBeUndefined();
    expect(always.situate(item('Where did I buy the wild garlic?', ['K:1']), createRng(1))).toBeUndefined();
    // Nothing else said in that conversation.
    expect(always.situate(item('Which place did I visit?', ['L:1']), createRng(1))).toBeUndefined();
  });

  it('evidence across days: by the day of the record the question asks about, when the template names it', () => {
    const twoHop = { ...item('What did I visit after repairing the rear tire?', ['K:1', 'L:1'], 'Humboldt Forum'), askedRecord: 'K:1' };
    expect(always.situate(twoHop, createRng(1))).toMatchObject({ phrase: 'bought some wild garlic', record: 'K:2' });
    // Nothing else said on the later day; a named record that is not evidence places nothing.
    expect(always.situate({ ...twoHop, askedRecord: 'L:1' }, createRng(1))).toBeUndefined();
    expect(always.situate({ ...twoHop, askedRecord: 'K:2' }, createRng(1))).toBeUndefined();
  });

  it('when the user did nothing else that day, by what we talked about then, in words no other conversation has', () => {
    const desk = [
      ua('P:1', '2024-06-02T09:00:00', 'This morning I fixed the squeaky hinge with the Bosch screwdriver.'),
      ua('P:2', '2024-06-02T10:00:00', 'Should the rosewood desk or the walnut table go by the window? There are the first hints of rust.'),
      ua('Q:1', '2024-06-20T10:00:00', 'The walnut table looks fine next to the desk.'),
    ];
    const g = buildRecordGraph(desk);
    const situating = createSituating(createRuleContext(g), g, 1, 1);
    const placed = Array.from({ length: 12 }, (_, k) => situating.situate(item('Which screwdriver did I use?', ['P:1']), createRng(k)));
    for (const s of placed) {
      // "the walnut table" is said on another day too, "the window" is one common noun, "the first hints" vague.
      expect(s).toEqual({
        question: expect.stringMatching(
          /^Which screwdriver did I use, (?:the same day|on the day|the day) we (?:talked about|discussed) the rosewood desk\?$/,
        ),
        phrase: expect.stringMatching(/^(?:talked about|discussed) the rosewood desk$/),
        record: 'P:2',
      });
    }
    // Never from the evidence, nor in the question's own words.
    expect(situating.situate(item('Which screwdriver did I use?', ['P:1', 'P:2']), createRng(1))).toBeUndefined();
    expect(situating.situate(item('Which rosewood piece did I fix?', ['P:1']), createRng(1))).toBeUndefined();
  });

  it('only from the same day: a conversation that runs past midnight does not lend its next day', () => {
    const late = [
      ua('N:1', '2024-05-04T23:50:00', 'Tonight I repaired the rear tire with the iFixit kit.'),
      ua('N:2', '2024-05-05T00:20:00', 'Then I bought some wild garlic online.'),
    ];
    const g = buildRecordGraph(late);
    expect(createSituating(createRuleContext(g), g, 1).situate(item('Which kit did I use?', ['N:1']), createRng(1))).toBeUndefined();
  });

  it('only in a user’s own history, and at its share', () => {
    const chat = [
      turn('S:1', 'Ana', '2024-05-04T09:00:00', 's', 'This morning I repaired the rear tire.'),
      turn('S:2', 'Ana', '2024-05-04T10:00:00', 's', 'This afternoon I bought some wild garlic.'),
    ];
    const g = buildRecordGraph(chat);
    expect(createSituating(createRuleContext(g), g, 1).situate(item('Which tire did Ana repair?', ['S:1']), createRng(1))).toBeUndefined();
    const never = createSituating(ctx, graph, 0);
    expect(never.situate(item('Which kit did I use?', ['K:1']), createRng(1))).toBeUndefined();
    const half = createSituating(ctx, graph, 0.5);
    const rng = createRng(7);
    const placed = Array.from({ length: 200 }, () => half.situate(item('Which kit did I use?', ['K:1']), rng)).filter(Boolean).length;
    expect(placed).toBeGreaterThan(70);
    expect(placed).toBeLessThan(130);
    // A question naming its date loses it at the in-place share, and keeps it, with the situation beside it, else.
    const dated = item('What kit did the assistant mention on 4 May 2024?', ['K:1']);
    expect(createSituating(ctx, graph, 1, 0).situate(dated, createRng(1))?.question).toMatch(
      /^What kit did you mention on 4 May 2024, (?:the same day I|the day I also|on the day I) bought some wild garlic\?$/,
    );
    const halfInPlace = createSituating(ctx, graph, 1, 0.5);
    const both = Array.from({ length: 200 }, () => halfInPlace.situate(dated, rng));
    expect(both.every(Boolean)).toBe(true);
    const replaced = both.filter((s) => !s!.question.includes('4 May 2024')).length;
    expect(replaced).toBeGreaterThan(70);
    expect(replaced).toBeLessThan(130);
  });

  it('the blind reader reads the question as it was before', async () => {
    const seen: string[] = [];
    const base: BlindReader = {
      name: 'fake',
      async read(input) {
        seen.push(input.question);
        return { answerable: true, answer: 'iFixit kit', citations: ['K:1'] };
      },
    };
    const situating = createSituating(ctx, graph, 1, 1);
    const reader = situating.reader(base);
    expect(reader.name).toBe('fake+situation@4');
    const asked = ['Which kit did I use?', 'After the user talked about the tire on 4 May 2024, which kit did the assistant mention?'];
    for (const [i, q] of asked.entries()) {
      const s = situating.situate(item(q, ['K:1']), createRng(i));
      await reader.read({ question: s!.question, answerType: 'text', records: day });
    }
    expect(seen).toEqual(asked);
  });
});

describe('the offline generator places questions in their day', () => {
  it('on the embedded persona: situated items name a record that is not evidence, of the same day or on the side they say', async () => {
    const [h] = await loadHistories(DEFAULT_SOURCE);
    const { items } = await generateSupervision(h!, { mode: 'offline', n: 60, seed: 1 });
    const g = buildRecordGraph(h!.records);
    const situated = items.filter((it) => typeof it.checks?.situation === 'string');
    expect(situated.length).toBeGreaterThan(3);
    expect(situated.length).toBeLessThan(items.length);
    for (const it of situated) {
      const c = it.checks!;
      expect(it.question).toContain(String(c.situation));
      expect(it.question).not.toMatch(/\bthe (?:user|assistant)\b/);
      // It names no time its templated question did not: a date is kept, replaced or (for a day asked) its month kept.
      const times = (q: string) =>
        q.match(/\b(?:\d{1,2} )?(?:January|February|March|April|May|June|July|August|September|October|November|December)(?: \d{4})?/g) ??
        [];
      for (const t of times(it.question)) expect(String(c.unsituatedQuestion)).toContain(t);
      expect(String(c.blindReader)).toMatch(/\+situation@4$/);
      const record = String(c.situationRecord);
      expect(it.evidence.map((e) => e.record)).not.toContain(record);
      const at = g.index.get(record)!;
      const situationDay = g.records[at]!.time!.slice(0, 10);
      // Asked once the event that names its day has happened, as well as its evidence.
      expect(it.date! > situationDay).toBe(true);
      if (it.answerType === 'date') {
        // Another day, on the side the question says.
        const asked = resolveDates(it.answer)[0]!.date;
        expect(it.question).toMatch(/, (?:some time )?(?:before|after) (?:I|we) [^?]+\?$/);
        expect(situationDay > asked).toBe(/, (?:some time )?before (?:I|we) /.test(it.question));
        expect(situationDay).not.toBe(asked);
      } else {
        expect(it.question).toMatch(/(?:the same day|the day|on the day) (?:I|we) /);
        // Of the day of its evidence; a two-hop question's of the day of the later event it asks about.
        const sameDay = it.evidence.map((e) => {
          const k = g.index.get(e.record)!;
          return g.threadOf[k] === g.threadOf[at] && g.records[k]!.time!.slice(0, 10) === situationDay;
        });
        expect(c.template === 'event-after' ? sameDay.at(-1) : sameDay.every(Boolean)).toBe(true);
      }
    }
    // Both kinds occur on the embedded persona.
    expect(situated.some((it) => it.answerType === 'date')).toBe(true);
    expect(situated.some((it) => it.answerType !== 'date')).toBe(true);
  });
});
