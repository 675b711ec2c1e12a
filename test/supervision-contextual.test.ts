import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { loadHistoriesSync } from '../src/history/load.ts';
import { tokensIn } from '../src/supervision/rule-based/cues.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import {
  contextualQuestion,
  cueFor,
  maxSharedWords,
  sharedContentStems,
  threadUtterances,
  utterancesOf,
} from '../src/supervision/rule-based/contextual.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { checkQuestion } from '../src/supervision/question-checks.ts';
import { verifySpan } from '../src/supervision/spans.ts';
import { namesADate } from '../src/supervision/rule-based/gist.ts';
import { whoAt } from '../src/supervision/rule-based/speakers.ts';
import { turn } from './helpers/turn.ts';

const LOCOMO = join(import.meta.dirname, '..', '..', 'shared', 'data', 'locomo', 'locomo10.json');

// Melanie asks about Caroline's summer plans; Caroline's reply names "adoption agencies", which no word of the
// question shares. Other sessions talk about the same things so nothing is unique by one rare word.
const records: SourceRecord[] = [
  turn('D1:1', 'Melanie', '2023-05-08T10:00:00', 's1', 'My kids are so excited about the summer break and the camping trip.'),
  turn('D1:2', 'Caroline', '2023-05-08T10:00:00', 's1', 'That sounds fun! The camping trip with the kids will be great.'),
  turn('D1:3', 'Melanie', '2023-05-08T10:00:00', 's1', 'What are your plans for the summer break this year?'),
  turn('D1:4', 'Caroline', '2023-05-08T10:00:00', 's1', 'I have been looking into adoption agencies, it has been a dream of mine.'),
  turn('D1:5', 'Melanie', '2023-05-08T10:00:00', 's1', 'Wow, that is wonderful news! Enjoy the break, you deserve it.'),
  turn('D2:1', 'Caroline', '2023-06-20T10:00:00', 's2', 'The pottery class at the community center was a blast.'),
  turn('D2:2', 'Melanie', '2023-06-20T10:00:00', 's2', 'I made a blue bowl in the pottery class for the kitchen.'),
  turn('D2:3', 'Caroline', '2023-06-20T10:00:00', 's2', 'The adoption agencies in town also run a family day with the kids in July.'),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const at = (id: string): number => graph.index.get(id)!;

describe('context-linked questions (answer turn + cue turn)', () => {
  it('asks about a reply in the words of the turn before it, shares at most one word with the reply, and verifies', async () => {
    const us = threadUtterances(ctx, at('D1:4'));
    const k = us.findIndex((u) => u.record === at('D1:4'));
    const cue = cueFor(ctx, us, k, 'reply')!;
    expect(graph.records[cue.record]!.id).toBe('D1:3');
    const reply = { record: at('D1:4'), start: 0, end: records[3]!.text.length };
    // Between people a question may share no content word with the answer turn: whatever is asked shares none, and
    // the question below, which shares the head noun of what it asks for, is not asked.
    for (let seed = 1; seed < 30; seed++) {
      const p = contextualQuestion(ctx, us[k]!, cue, 'reply', createRng(seed));
      if (p) expect(sharedContentStems(ctx, p.question, reply)).toEqual([]);
      expect(p?.question ?? '').not.toMatch(/agencies/);
    }
    // Where one word may be shared (a user's own history: maxSharedWords), it is.
    const oneWord = { ...ctx, multiSpeaker: false };
    expect(maxSharedWords(oneWord)).toBe(1);
    let c;
    for (let seed = 1; seed < 30 && !c; seed++) c = contextualQuestion(oneWord, us[k]!, cue, 'reply', createRng(seed));
    expect(c).toBeDefined();
    expect(c!.template).toBe('cue-reply');
    expect(c!.type).toBe('single-hop');
    expect(c!.question).toMatch(
      new RegExp(
        String.raw`^What agencies did Caroline mention when Melanie asked about (the summer break|the break|the plans)` +
          String.raw`(?: in May 2023| on 8 May 2023)?\?$`,
      ),
    );
    expect(c!.plan.answer).toBe('adoption agencies');
    // One evidence record, the answer turn; its quote is a verbatim span of it.
    expect(c!.plan.evidence.map((e) => e.record)).toEqual(['D1:4']);
    expect(records[3]!.text).toContain(c!.plan.facts[0]!.quote);
    // Only the lead's head noun is shared with the answer turn.
    expect(sharedContentStems(ctx, c!.question, reply)).toEqual(['agenc']);
    expect(
      checkQuestion(
        c!.question,
        c!.plan.answer,
        c!.plan.answerType,
        records.map((r) => r.id),
      ).ok,
    ).toBe(true);
    const reading = await createOfflineBlindReader().read({ question: c!.question, answerType: 'text', records });
    expect(reading).toMatchObject({ answerable: true, answer: 'adoption agencies', citations: ['D1:4'] });
  });

  it('the reader steps from the cue to its neighbour: the next turn, or the one before for "right before"', async () => {
    const reader = createOfflineBlindReader();
    const before = await reader.read({
      question: 'Right before Melanie talked about the summer break, which trip did Caroline mention?',
      answerType: 'text',
      records,
    });
    // The turn before Melanie's question is Caroline's D1:2 ("the camping trip").
    expect(before).toMatchObject({ answerable: true, answer: 'camping trip', citations: ['D1:2'] });
    // Without the answer turn in the material, the neighbour of the cue is someone else's turn: no answer.
    const gap = await reader.read({
      question: 'When Melanie asked about the summer break, which agencies did Caroline mention?',
      answerType: 'text',
      records: records.filter((r) => r.id !== 'D1:4'),
    });
    expect(gap.answerable).toBe(false);
  });

  it('never takes a month or a weekday for a gist: that is when something was said, not what', () => {
    for (const p of ['June', 'Thursdays', 'the July trip', 'Sunday brunch']) expect(namesADate(p), p).toBe(true);
    for (const p of ['the march', 'the summer break', 'Mayfair', 'Dell']) expect(namesADate(p), p).toBe(false);
  });

  it('splits User/Assistant turns into two utterances, so the user message can cue the assistant reply', () => {
    const ua: SourceRecord[] = [
      {
        id: 'd1:1',
        kind: 'turn',
        time: '2024-02-01T09:00:00',
        thread: 'd1',
        text:
          'User: How should I store the seed packets over winter?\n' +
          'Assistant: Keep them in an airtight glass jar somewhere cool and dark.',
      },
    ];
    const g = buildRecordGraph(ua);
    const c = createRuleContext(g);
    const us = utterancesOf(c, 0);
    expect(us.map((u) => u.who)).toEqual(['the user', 'the assistant']);
    expect(ua[0]!.text.slice(us[1]!.start, us[1]!.end)).toMatch(/^\nAssistant: Keep/);
    expect(cueFor(c, us, 1, 'reply')).toEqual(us[0]);
    expect(cueFor(c, us, 0, 'reply')).toBeUndefined();
  });
});

describe.skipIf(!existsSync(LOCOMO))('context-linked supervision on LoCoMo', () => {
  it('makes a large share of the items, each answered by one turn its cue neighbours, with spans verified and no leak', async () => {
    const [history] = loadHistoriesSync(`locomo:${LOCOMO}#conv-26`);
    const { items } = await generateSupervision(history!, { mode: 'offline', n: 200 });
    // Five types capped at 35% each: aggregation and false-premise questions are few in one conversation.
    expect(items.length).toBeGreaterThanOrEqual(160);
    const cued = items.filter((it) => /^cue-/.test(String(it.checks?.template)));
    // The statement families (what/when/yes-no about what a speaker said they did, how they felt about it) come first;
    // cue questions fill the rest, and between people only those that share no word with the answer turn (9 here).
    expect(cued.length).toBeGreaterThanOrEqual(5);
    const byId = new Map(history!.records.map((r, i) => [r.id, { r, i }]));
    const g = buildRecordGraph(history!.records);
    const c = createRuleContext(g);
    for (const it of cued) {
      expect(it.category).toBe('single-hop');
      expect(new Set(it.evidence.map((e) => e.record)).size).toBe(1);
      const { r: t, i } = byId.get(it.evidence[0]!.record)!;
      for (const e of it.evidence) expect(!!e.span && verifySpan(t.text, e.span, e.quote)).toBe(true);
      expect(
        checkQuestion(
          it.question,
          it.answer,
          it.answerType,
          history!.records.map((r) => r.id),
        ).ok,
      ).toBe(true);
      // The cue is the turn right before (reply) or after (reaction) in the same session, said by the speaker the
      // question names first; the answer turn's speaker is the one asked about; the cue phrase is the cue's.
      // Read in its explicit form, where a date it names has its year (rule-based/asked-dates.ts).
      const m =
        /did (\S+) mention(?: in reply)? (?:when|right before) (\S+) (?:asked|talked) about (.+?)(?: (?:in|on) [^,]*\d{4})?\?$/.exec(
          String(it.checks?.explicitQuestion ?? it.question),
        )!;
      expect(m).not.toBeNull();
      const cue = history!.records[it.checks?.template === 'cue-reply' ? i - 1 : i + 1]!;
      expect(cue.thread).toBe(t.thread);
      expect(whoAt(cue, 0)).toBe(m[2]);
      expect(whoAt(t, 0)).toBe(m[1]);
      const cueStems = new Set(tokensIn(cue.text).map((x) => x.stem));
      for (const x of tokensIn(m[3]!.replace(/^the /, ''))) expect(cueStems.has(x.stem)).toBe(true);
      // No content word of the question is the answer turn's own.
      expect(sharedContentStems(c, it.question, { record: g.index.get(t.id)!, start: 0, end: t.text.length })).toEqual([]);
      expect(t.text.toLowerCase()).toContain(it.answer.toLowerCase().split(/\s+/).pop()!);
    }
  }, 60_000);
});
