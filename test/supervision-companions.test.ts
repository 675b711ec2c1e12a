import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { checkQuestion } from '../src/supervision/question-checks.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { companionEvents, companionPremiseQuestion, companionPremiseWhat } from '../src/supervision/rule-based/companions.ts';
import { createRuleContext, ruleCandidate } from '../src/supervision/rule-based/generator.ts';
import { aboutUser, inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { passesChecks } from './helpers/candidate-checks.ts';
import { userTurn } from './helpers/turn.ts';

const ua = userTurn;

// A user who does things with three people over five days; Rohan, Dr. Suri and Mr. Ramesh each act on their own too.
const mine: SourceRecord[] = [
  ua('A:1', '2024-03-10T21:00:00', 'This evening I played an online chess match with Rohan.'),
  ua('A:2', '2024-03-10T21:05:00', 'Rohan won the second game, sadly.'),
  ua('B:1', '2024-04-02T09:00:00', 'This morning I fixed my bike with Dr. Anjali Suri.'),
  ua('C:1', '2024-04-20T09:00:00', 'Today I planted marigolds with Mr. Ramesh in the east bed.'),
  ua('D:1', '2024-05-01T09:00:00', 'Mr. Ramesh says the roses need pruning, and Dr. Suri called about my voice.'),
  ua('E:1', '2024-05-02T09:00:00', 'Rohan called to ask about the garden.'),
];
const g = buildRecordGraph(mine);
const ctx = createRuleContext(g);
const at = (id: string): number => g.index.get(id)!;
const reader = createOfflineBlindReader();

describe("a false premise in a user's own history: the companion swapped", () => {
  it('reads what the user did with whom on a day their sentence gives, from their half of the turn only', () => {
    expect(companionEvents(mine[0]!)).toMatchObject([
      // The question asks with the gist: people do not quote their own adjectives back.
      { event: 'played an online chess match', gist: 'played a chess match', name: 'Rohan', iso: '2024-03-10' },
    ]);
    expect(companionEvents(mine[2]!)).toMatchObject([{ event: 'fixed my bike', name: 'Dr. Anjali Suri', iso: '2024-04-02' }]);
    const not = [
      // No day to place it on; a companion before the thing done; another clause in between; a thing, not a person.
      ua('F:1', '2024-06-01T09:00:00', 'I played chess with Rohan.'),
      ua('F:2', '2024-06-01T09:00:00', 'This morning I went with Rohan to the market.'),
      ua('F:3', '2024-06-01T09:00:00', 'Today I baked bread, and I ate it with jam.'),
      ua('F:4', '2024-06-01T09:00:00', 'Today I had just finished lunch with Rohan.'),
      ua('F:5', '2024-06-01T09:00:00', 'Today I cleaned the lens with Miguel’s brush.'),
      ua('F:6', '2024-06-01T09:00:00', 'Hello.', 'This morning I played chess with Rohan.'),
      ua('F:7', '2024-06-01T09:00:00', 'This evening I felt a deep sense of calm with Rohan.'),
    ];
    for (const r of not) expect(companionEvents(r), r.text).toEqual([]);
  });

  it('asks about someone the user never did it with that day, answers "No", and the blind reader recovers it', async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const c = companionPremiseQuestion(ctx, at('A:1'), createRng(seed));
      expect(c).toBeDefined();
      expect(c!.type).toBe('false-premise');
      expect(c!.plan.answer).toBe('No');
      expect(c!.plan.premise?.correction).toContain('Rohan');
      // The encounter's other turn that day ("Rohan won the second game") is evidence too: the correction is the whole meeting.
      expect(c!.plan.evidence.map((e) => e.record)).toEqual(['A:1', 'A:2']);
      seen.add(inUserVoice(c!.question));
      expect(passesChecks(c!, mine, 'false-premise')).toEqual({ plan: true, question: true });
      const reading = await reader.read({ question: inUserVoice(c!.question), answerType: 'boolean', records: mine });
      expect(reading).toMatchObject({ answerable: true, answer: 'No', citations: ['A:1', 'A:2'] });
    }
    expect([...seen].sort()).toEqual([
      'Can you remind me whether I played a chess match with Dr. Anjali Suri on 10 March 2024?',
      'Can you remind me whether I played a chess match with Mr. Ramesh on 10 March 2024?',
    ]);
    expect(aboutUser('Can you remind me whether I played chess with Mr. Ramesh on 10 March 2024?')).toBe(
      'Can you remind me whether the user played chess with Mr. Ramesh on 10 March 2024?',
    );
  });

  it('never swaps in someone named on that day, in its conversation or elsewhere', () => {
    // Dr. Suri and Mr. Ramesh are both named on 1 May; a planting that day with Rohan can only be asked of nobody.
    const more = [...mine, ua('G:1', '2024-05-01T18:00:00', 'This evening I planted tulips with Rohan.')];
    const mctx = createRuleContext(buildRecordGraph(more));
    for (let seed = 1; seed <= 10; seed++) expect(companionPremiseQuestion(mctx, more.length - 1, createRng(seed))).toBeUndefined();
    // On 20 April only Mr. Ramesh is named: Rohan and Dr. Suri can be swapped in.
    const asked = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) asked.add(companionPremiseQuestion(ctx, at('C:1'), createRng(seed))!.question);
    expect([...asked].sort()).toEqual([
      'Can you remind me whether the user planted marigolds with Dr. Anjali Suri on 20 April 2024?',
      'Can you remind me whether the user planted marigolds with Rohan on 20 April 2024?',
    ]);
  });

  it('the reader says "Yes" when the user did it with that person that day, so a true premise is never kept as false', async () => {
    const yes = await reader.read({
      question: 'Can you remind me whether I played a chess match with Rohan on 10 March 2024?',
      answerType: 'boolean',
      records: mine,
    });
    expect(yes).toMatchObject({ answer: 'Yes', citations: ['A:1'] });
    const otherDay = await reader.read({
      question: 'Can you remind me whether I played a chess match with Rohan on 11 March 2024?',
      answerType: 'boolean',
      records: mine,
    });
    expect(otherDay.answerable).toBe(false);
  });

  it("cites the encounter: that day's turns of the conversation that name the companion, nearest first, at most four records", async () => {
    const day = [
      ua('H:1', '2024-07-01T09:00:00', 'Rohan says the market opens at eight.'),
      ua('H:2', '2024-07-01T09:10:00', 'The weather is lovely.'),
      ua('H:3', '2024-07-01T09:20:00', 'This morning I repaired the fence with Rohan.'),
      ua('H:4', '2024-07-01T09:30:00', 'Rohan brought his own hammer.'),
      ua('H:5', '2024-07-01T09:40:00', 'Later Rohan left for the station.'),
      ua('H:6', '2024-07-01T09:50:00', 'Rohan phoned to say he arrived.'),
      // Another day of the same conversation, and the same day in another one: not this encounter.
      ua('H:7', '2024-07-02T09:00:00', 'Rohan wants to paint the fence next.'),
      ua('K:1', '2024-07-01T20:00:00', 'Rohan sent me a photo of the fence.'),
      ua('L:1', '2024-06-01T09:00:00', 'Dr. Meera Rao said Rohan is reliable.'),
      ua('L:2', '2024-06-02T09:00:00', 'This morning I reviewed the audit with Dr. Meera Rao.'),
    ];
    const hctx = createRuleContext(buildRecordGraph(day));
    const c = companionPremiseQuestion(hctx, 2, createRng(1))!;
    expect(c.question).toBe('Can you remind me whether the user repaired the fence with Dr. Meera Rao on 1 July 2024?');
    // H:2 names nobody; the two nearest turns on either side that name Rohan, up to four records in all.
    expect(c.plan.evidence.map((e) => e.record)).toEqual(['H:3', 'H:4', 'H:1', 'H:5']);
    const reading = await reader.read({ question: inUserVoice(c.question), answerType: 'boolean', records: day });
    expect(reading).toMatchObject({ answerable: true, answer: 'No', citations: ['H:3', 'H:4', 'H:1', 'H:5'] });
  });

  it('asks the same swap as a request that takes the premise for granted, answered by the correction', async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const c = companionPremiseWhat(ctx, at('A:1'), createRng(seed))!;
      expect(c.template).toBe('companion-premise-what');
      expect(c.plan.evidence.map((e) => e.record)).toEqual(['A:1', 'A:2']);
      const asked = inUserVoice(c.question);
      seen.add(asked);
      expect(aboutUser(asked)).toBe(c.question);
      expect(
        checkQuestion(
          c.question,
          c.plan.answer,
          'text',
          mine.map((r) => r.id),
        ).ok,
      ).toBe(true);
      const reading = await reader.read({ question: asked, answerType: 'text', records: mine });
      expect(reading).toMatchObject({ answerable: true, answer: c.plan.answer, citations: ['A:1', 'A:2'] });
    }
    expect([...seen].sort()).toEqual([
      'Can you remind me what Dr. Anjali Suri and I talked about when we played a chess match on 10 March 2024?',
      'Can you remind me what Mr. Ramesh and I talked about when we played a chess match on 10 March 2024?',
    ]);
    expect(companionPremiseWhat(ctx, at('A:1'), createRng(1))!.plan.answer).toBe('It was with Rohan.');
  });

  it('the reader leaves the request unanswered when its premise holds, or when that day names the person', async () => {
    const ask = async (q: string, records: SourceRecord[]) => reader.read({ question: q, answerType: 'text', records });
    // Rohan did play chess with the user that day: what they talked about is not the reader's to say.
    const held = await ask('Can you remind me what Rohan and I talked about when we played a chess match on 10 March 2024?', mine);
    expect(held.answerable).toBe(false);
    // Dr. Suri is named that day, though not in the chess sentence: she may have been there.
    const named = [...mine, ua('A:3', '2024-03-10T22:00:00', 'Dr. Anjali Suri phoned after the match.')];
    const q = 'Can you remind me what Dr. Anjali Suri and I talked about when we played a chess match on 10 March 2024?';
    expect((await ask(q, named)).answerable).toBe(false);
    expect(await ask(q, mine)).toMatchObject({ answerable: true, answer: 'It was with Rohan.' });
    // An event that is itself a conversation, one that did not happen, or one of the user alone.
    for (const text of [
      'This morning I talked about the budget with Rohan.',
      'This morning I missed the call with Rohan.',
      'This morning I found myself in a long conversation with Rohan.',
    ]) {
      const tctx = createRuleContext(buildRecordGraph([ua('T:1', '2024-08-01T09:00:00', text), ...mine]));
      expect(companionEvents(tctx.graph.records[0]!), text).toHaveLength(1);
      for (let seed = 1; seed <= 10; seed++) expect(companionPremiseWhat(tctx, 0, createRng(seed)), text).toBeUndefined();
    }
  });

  it('is the false-premise family of a user-voice history', () => {
    const templates = new Set<string>();
    for (let seed = 1; seed <= 60; seed++) {
      const fresh = createRuleContext(buildRecordGraph(mine));
      const bundle = { id: 'b', seed: 'A:1', records: mine.map((r) => r.id), tokens: 0, path: [] };
      const c = ruleCandidate(fresh, bundle, 'false-premise', createRng(seed));
      if (c) templates.add(`${c.template}: ${c.question.split(/ with | and I talked about /)[0]}`);
    }
    expect([...templates].sort()).toEqual([
      'companion-false-premise: Can you remind me whether I fixed my bike',
      'companion-false-premise: Can you remind me whether I planted marigolds',
      'companion-false-premise: Can you remind me whether I played a chess match',
      'companion-premise-what: Can you remind me what Dr. Anjali Suri',
      'companion-premise-what: Can you remind me what Mr. Ramesh',
      'companion-premise-what: Can you remind me what Rohan',
    ]);
  });
});
