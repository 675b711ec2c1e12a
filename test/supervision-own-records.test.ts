import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { mailboxOwner } from '../src/supervision/rule-based/speakers.ts';
import { dateQuestion, type RuleCandidate, whichQuestion } from '../src/supervision/rule-based/templates.ts';
import { inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { userTurn } from './helpers/turn.ts';

/** An e-mail as the RHELM loader reads it: the header lines, the sender's name as its speaker. */
const email = (id: string, day: string, sender: string, body: string): SourceRecord => ({
  id,
  kind: 'email',
  time: day,
  thread: `mail-${day}`,
  speaker: sender,
  text: `Sender: ${sender} <ana.ruiz@example.org>\nRecipient: Leo Brandt <leo@example.org>\nSubject: Notes\n\n${body}`,
});

// An invented user–assistant history whose owner, Ana Ruiz, signs some e-mails with her title and some without.
const chats = [
  userTurn('A:1', '2024-03-02T09:00:00Z', 'I sorted the seed packets on the balcony this morning before the rain came.'),
  userTurn('B:1', '2024-04-11T09:00:00Z', 'The neighbours asked about the flyers for the street festival again today.'),
  userTurn('C:1', '2024-05-20T09:00:00Z', 'I fixed the squeaky hinge on the garden gate after lunch with some oil.'),
];
const mails = [
  email('M:1', '2024-04-03', 'Ana Ruiz', 'Hi Leo, I dropped the festival flyers at the print shop on the corner this morning.'),
  email('M:2', '2024-06-14', 'Dr. Ana Ruiz', 'Hi Leo, the committee loved the watercolour posters you painted for the hall.'),
  email('M:3', '2024-07-01', 'Leo Brandt', 'Hi Ana, thanks for the lovely photos from the harbour walk on Sunday.'),
];

describe('a user’s own e-mails are asked of in the first person', () => {
  it('finds the owner of a mailbox under every form of her name, and no owner where no one sends most of it', () => {
    expect([...mailboxOwner([...chats, ...mails])].sort()).toEqual(['Ana Ruiz', 'Dr. Ana Ruiz']);
    const shared = [
      email('S:1', '2024-01-01', 'Ana Ruiz', 'Hello.'),
      email('S:2', '2024-01-02', 'Leo Brandt', 'Hello.'),
      email('S:3', '2024-01-03', 'Mia Chen', 'Hello.'),
      email('S:4', '2024-01-04', 'Omar Haddad', 'Hello.'),
      email('S:5', '2024-01-05', 'Eva Stein', 'Hello.'),
    ];
    expect(mailboxOwner(shared).size).toBe(0);
  });

  it('asks "what … did I mention in an e-mail" of her e-mail, and the blind reader finds it among hers', async () => {
    const records = [...chats, ...mails];
    const graph = buildRecordGraph(records);
    const ctx = createRuleContext(graph);
    let c: RuleCandidate | undefined;
    for (let seed = 1; seed < 40 && !c?.question.includes('e-mail'); seed++)
      c = whichQuestion(ctx, graph.index.get('M:1')!, createRng(seed));
    // Said by her in no other e-mail, under either name: asked without a time.
    expect(c!.question).toBe('What flyers did the user mention in an e-mail?');
    expect(c!.plan.answer).toBe('festival flyers');
    const asked = inUserVoice(c!.question);
    expect(asked).toMatch(/^What flyers did I mention in an e-mail/);
    expect(asked).not.toContain('Ana');
    const reading = await createOfflineBlindReader().read({ question: asked, answerType: 'text', records });
    expect(checkBlindReading(reading, { answer: 'festival flyers', answerType: 'text', evidenceRecords: ['M:1'] })).toEqual({
      ok: true,
    });
  });

  it('does not ask it when her e-mail under her other name says the same noun in the same time', () => {
    const twice = [...chats, ...mails, email('M:4', '2024-04-20', 'Dr. Ana Ruiz', 'Leo, the union flyers are finally back.')];
    const graph = buildRecordGraph(twice);
    const ctx = createRuleContext(graph);
    const asked = new Set<string>();
    for (let seed = 1; seed < 40; seed++) {
      const c = whichQuestion(ctx, graph.index.get('M:1')!, createRng(seed));
      if (c?.question.includes('flyers')) asked.add(c.question);
    }
    // Only the day tells the two apart: "in April 2024", or no time at all, would name both.
    expect([...asked]).toEqual(['What flyers did the user mention in an e-mail on 3 April 2024?']);
  });
});

describe('a user’s own documents are named by the conversation that shared them', () => {
  const FILE = 'budget.md';
  const doc: SourceRecord = {
    id: `${FILE}:Allotment Budget`,
    kind: 'document',
    thread: FILE,
    title: 'Allotment Budget',
    time: '2024-05-02T09:00:00Z',
    text: 'Allotment Budget\n\nThe water tank delivery from the cooperative is booked for 18 May 2024, paid in cash.',
    meta: { file: FILE, section: 1, level: 1 },
  };
  const sharing = userTurn(
    'D:1',
    '2024-05-02T10:00:00Z',
    '[Upload budget.md] Could you check the sums in my plot plan before the committee sees the cooperative invoice?',
  );
  const dateFact = (records: SourceRecord[]) => {
    const graph = buildRecordGraph(records);
    const ctx = createRuleContext(graph);
    const i = graph.index.get(doc.id)!;
    const f = ctx.facts(i).find((x) => x.kind === 'date')!;
    return { ctx, i, f: f as Extract<typeof f, { kind: 'date' }> };
  };

  it('asks the date a shared document gives by the conversation, citing the sharing turn, and the reader follows it', async () => {
    const records = [...chats, sharing, doc];
    const { ctx, i, f } = dateFact(records);
    let c: RuleCandidate | undefined;
    for (let seed = 1; seed < 40 && !c; seed++) c = dateQuestion(ctx, i, f, createRng(seed));
    expect(c!.question).toMatch(/^In the document the user shared while talking about .+, what date does it give in the part about .+\?$/);
    expect(c!.question).not.toContain('Allotment Budget');
    expect(c!.type).toBe('multi-hop');
    expect(c!.plan.evidence.map((e) => e.record)).toEqual(['D:1', doc.id]);
    const asked = inUserVoice(c!.question);
    expect(asked).toMatch(/^In the document I shared while talking about /);
    const reading = await createOfflineBlindReader().read({ question: asked, answerType: 'date', records });
    expect(checkBlindReading(reading, { answer: '18 May 2024', answerType: 'date', evidenceRecords: ['D:1', doc.id] })).toEqual({
      ok: true,
    });
  });

  it('does not ask by title in a user’s own history, and keeps the title where the history is not one', () => {
    const unshared = dateFact([...chats, doc]);
    for (let seed = 1; seed < 20; seed++) expect(dateQuestion(unshared.ctx, unshared.i, unshared.f, createRng(seed))).toBeUndefined();
    const people = [
      { id: 'P:1', kind: 'turn' as const, time: '2024-05-01T09:00:00Z', thread: 'P', speaker: 'Mia', text: 'Did the tank come?' },
      { id: 'P:2', kind: 'turn' as const, time: '2024-05-01T09:01:00Z', thread: 'P', speaker: 'Omar', text: 'Not yet, sadly.' },
    ];
    const titled = dateFact([...people, doc]);
    let c: RuleCandidate | undefined;
    for (let seed = 1; seed < 40 && !c; seed++) c = dateQuestion(titled.ctx, titled.i, titled.f, createRng(seed));
    expect(c!.question).toMatch(/^What date does the document “Allotment Budget” give in the part about .+\?$/);
  });
});
