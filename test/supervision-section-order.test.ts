import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { checkPlan } from '../src/supervision/plan-checks.ts';
import { checkQuestion } from '../src/supervision/question-checks.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { sectionOrderQuestion } from '../src/supervision/rule-based/section-order.ts';
import type { RuleCandidate } from '../src/supervision/rule-based/templates.ts';
import { inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { turn, userTurn } from './helpers/turn.ts';

const FILE = 'trip.md';
/** A section record as the document loader writes it: heading first, its place in the outline in `meta`. */
const section = (n: number, level: number, title: string, body: string, parent?: string): SourceRecord => ({
  id: `${FILE}:${title}`,
  kind: 'document',
  thread: FILE,
  title,
  time: '2024-10-10T09:00:00Z',
  text: `${title}\n\n${body}`,
  meta: { file: FILE, section: n, level, ...(parent ? { parent: `${FILE}:${parent}` } : {}) },
});

// An invented trip plan: the two level-2 parts "Packing List" and "Daily Plan" are siblings, "Boots" sits under the
// first, so the part right after "Packing List" is "Daily Plan", not the sub-section between them.
const ROOT = 'Weekend Hiking Trip to the Harz';
const records: SourceRecord[] = [
  turn('c1:1', 'user', '2024-10-09T18:00:00Z', 'c1', 'User: Can you help me tidy up my Harz trip notes before Saturday?'),
  section(1, 1, ROOT, 'Two days of walking from Wernigerode, with a night in a mountain hut.'),
  section(2, 2, 'Packing List', 'Rain jacket, head torch, two litres of water and a paper map.', ROOT),
  section(3, 3, 'Boots', 'The old leather pair, waxed on Thursday evening.', 'Packing List'),
  section(4, 2, 'Daily Plan', 'Saturday: Brocken summit by noon. Sunday: the Ilse valley back to the car.', ROOT),
  section(5, 2, 'Budget', 'Hut 45 euros, train 30 euros, food about 40 euros.', ROOT),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const at = (title: string): number => graph.index.get(`${FILE}:${title}`)!;
const reader = createOfflineBlindReader();

/** Draws until the template asks in `direction` (it picks after or before at random). */
function ask(title: string, direction: 'after' | 'before'): RuleCandidate | undefined {
  for (let seed = 0; seed < 40; seed++) {
    const c = sectionOrderQuestion(ctx, at(title), createRng(`section:${seed}`));
    if (c?.question.includes(`right ${direction}`)) return c;
  }
  return undefined;
}

describe('section-order questions about the person’s own documents', () => {
  it('asks for the sibling right after a section, skipping its sub-sections, with both headings as verbatim evidence', async () => {
    const c = ask('Packing List', 'after')!;
    // A user talking to an assistant: the question is in the user's voice.
    expect(c.question).toBe(`In my document “${ROOT}”, which section comes right after “Packing List”?`);
    expect(c.plan.answer).toBe('Daily Plan');
    expect(c.plan.evidence.map((e) => e.record)).toEqual([`${FILE}:Packing List`, `${FILE}:Daily Plan`]);
    const pc = checkPlan(c.plan, {
      bundle: new Set(records.map((r) => r.id)),
      records: new Map(records.map((r) => [r.id, r])),
      allowedTypes: new Set(['multi-hop']),
    });
    expect(pc.ok).toBe(true);
    expect(
      checkQuestion(
        c.question,
        c.plan.answer,
        c.plan.answerType,
        records.map((r) => r.id),
      ).ok,
    ).toBe(true);
    // The blind reader finds it from the records' outline, citing both sections.
    const reading = await reader.read({ question: c.question, answerType: 'text', records });
    expect(
      checkBlindReading(reading, {
        answer: 'Daily Plan',
        answerType: 'text',
        evidenceRecords: [`${FILE}:Packing List`, `${FILE}:Daily Plan`],
      }),
    ).toEqual({ ok: true });
  });

  it('asks for the section right before one, and has nothing to ask where the outline has no neighbour', async () => {
    const c = ask('Budget', 'before')!;
    expect(c.plan.answer).toBe('Daily Plan');
    expect((await reader.read({ question: c.question, answerType: 'text', records })).answer).toBe('Daily Plan');
    // "Boots" is the only section at its level under "Packing List"; the document's own title names no section of it.
    expect(ask('Boots', 'after')).toBeUndefined();
    expect(ask('Boots', 'before')).toBeUndefined();
    expect(ask(ROOT, 'after')).toBeUndefined();
    expect(ask('Packing List', 'before')).toBeUndefined();
  });

  it('does not ask by a title that is only the file’s name (an HTML page’s <title>)', () => {
    const named = records.map((r) =>
      r.title === ROOT ? { ...r, title: '11_report_task_3fc6b8c3', text: '11_report_task_3fc6b8c3\n\n…' } : r,
    );
    const g = buildRecordGraph(named);
    const c = createRuleContext(g);
    for (let seed = 0; seed < 20; seed++)
      expect(sectionOrderQuestion(c, g.index.get(`${FILE}:Packing List`)!, createRng(`file:${seed}`))).toBeUndefined();
  });

  it('the reader answers from what it is shown: not without the neighbour, not when the heading is ambiguous', async () => {
    const question = `In my document “${ROOT}”, which section comes right after “Packing List”?`;
    const withoutNeighbour = records.filter((r) => r.title !== 'Daily Plan' && r.title !== 'Budget');
    expect((await reader.read({ question, answerType: 'text', records: withoutNeighbour })).answerable).toBe(false);
    // A second document with a "Packing List" of its own: its title tells them apart when the reader sees it.
    const other = (n: number, title: string): SourceRecord => ({
      ...section(n, n === 1 ? 1 : 2, title, 'Notes.', n === 1 ? undefined : 'Lisbon'),
      id: `b.md:${title}`,
      thread: 'b.md',
      meta: { file: 'b.md', section: n, level: n === 1 ? 1 : 2, ...(n > 1 ? { parent: 'b.md:Lisbon' } : {}) },
    });
    const both = [...records, other(1, 'Lisbon'), other(2, 'Packing List'), other(3, 'Flights')];
    expect((await reader.read({ question, answerType: 'text', records: both })).answer).toBe('Daily Plan');
    const untitled = both.filter((r) => r.title !== ROOT && r.title !== 'Lisbon');
    expect((await reader.read({ question, answerType: 'text', records: untitled })).answerable).toBe(false);
  });

  it('names a document shared in a conversation by that conversation, and cites the sharing turn', async () => {
    // The trip notes as shared in a chat: the question names the talk, not the title, as people ask of their documents.
    const sharing = userTurn(
      'c2:1',
      '2024-10-09T18:00:00Z',
      '[Upload trip.md] Could you check the mountain hut booking and the Wernigerode train times in my weekend notes?',
    );
    const shared = [sharing, ...records.slice(1)];
    const sharedGraph = buildRecordGraph(shared);
    const sharedCtx = createRuleContext(sharedGraph);
    let c: RuleCandidate | undefined;
    for (let seed = 0; seed < 40 && !c?.question.includes('right after'); seed++)
      c = sectionOrderQuestion(sharedCtx, sharedGraph.index.get(`${FILE}:Packing List`)!, createRng(`shared:${seed}`));
    expect(c!.question).toMatch(
      /^In the document the user shared while talking about .+, which section comes right after “Packing List”\?$/,
    );
    expect(c!.question).not.toContain(ROOT);
    expect(c!.plan.answer).toBe('Daily Plan');
    expect(c!.plan.evidence.map((e) => e.record)).toEqual(['c2:1', `${FILE}:Packing List`, `${FILE}:Daily Plan`]);
    // The blind reader finds the turn, follows its upload to the document and reads the outline there.
    // In the user's voice, as the generator writes it for a user–assistant history.
    const asked = inUserVoice(c!.question);
    expect(asked).toMatch(/^In the document I shared while talking about /);
    const reading = await reader.read({ question: asked, answerType: 'text', records: shared });
    expect(
      checkBlindReading(reading, {
        answer: 'Daily Plan',
        answerType: 'text',
        evidenceRecords: ['c2:1', `${FILE}:Packing List`, `${FILE}:Daily Plan`],
      }),
    ).toEqual({
      ok: true,
    });
  });
});
