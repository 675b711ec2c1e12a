import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { sectionOrderQuestion } from '../src/supervision/rule-based/section-order.ts';
import type { RuleCandidate } from '../src/supervision/rule-based/templates.ts';
import { inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { passesChecks } from './helpers/candidate-checks.ts';
import { documentSection, turn, userTurn } from './helpers/turn.ts';

const FILE = 'trip.md';
const section = documentSection(FILE, '2024-10-10T09:00:00Z', '');

// An invented trip plan: the two level-2 parts "Packing List" and "Daily Plan" are siblings, "Boots" sits under the
// first, so the part right after "Packing List" is "Daily Plan", not the sub-section between them.
const ROOT = 'Weekend Hiking Trip to the Harz';
// The trip notes as shared in a chat: the question names the talk, not the title, as people ask of their documents.
const sharing = userTurn(
  'c2:1',
  '2024-10-09T18:00:00Z',
  '[Upload trip.md] Could you check the mountain hut booking and the Wernigerode train times in my weekend notes?',
);
const records: SourceRecord[] = [
  sharing,
  section(1, 1, ROOT, 'Two days of walking from Wernigerode, with a night in a mountain hut.'),
  section(2, 2, 'Packing List', 'Rain jacket, head torch, two litres of water and a paper map.', ROOT),
  section(3, 3, 'Boots', 'The old leather pair, waxed on Thursday evening.', 'Packing List'),
  section(4, 2, 'Daily Plan', 'Saturday: Brocken summit by noon. Sunday: the Ilse valley back to the car.', ROOT),
  section(5, 2, 'Budget', 'Hut 45 euros, train 30 euros, food about 40 euros.', ROOT),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const reader = createOfflineBlindReader();

/** Draws until the template asks in `direction` (it picks after or before at random). */
function ask(title: string, direction: 'after' | 'before', c = ctx, g = graph): RuleCandidate | undefined {
  for (let seed = 0; seed < 40; seed++) {
    const q = sectionOrderQuestion(c, g.index.get(`${FILE}:${title}`)!, createRng(`section:${seed}`));
    if (q?.question.includes(`right ${direction}`)) return q;
  }
  return undefined;
}

describe('section-order questions about the person’s own documents', () => {
  it('names the document by the conversation that shared it, and cites the sharing turn and both headings', async () => {
    const c = ask('Packing List', 'after')!;
    expect(c.question).toMatch(
      /^In the document the user shared while talking about .+, which section comes right after “Packing List”\?$/,
    );
    expect(c.question).not.toContain(ROOT);
    // The sibling, not the sub-section between them.
    expect(c.plan.answer).toBe('Daily Plan');
    expect(c.plan.evidence.map((e) => e.record)).toEqual(['c2:1', `${FILE}:Packing List`, `${FILE}:Daily Plan`]);
    expect(passesChecks(c, records, 'multi-hop')).toEqual({ plan: true, question: true });
    // The blind reader finds the turn, follows its upload to the document and reads the outline there.
    // In the user's voice, as the generator writes it for a user–assistant history.
    const asked = inUserVoice(c.question);
    expect(asked).toMatch(/^In the document I shared while talking about /);
    const reading = await reader.read({ question: asked, answerType: 'text', records });
    expect(
      checkBlindReading(reading, {
        answer: 'Daily Plan',
        answerType: 'text',
        evidenceRecords: ['c2:1', `${FILE}:Packing List`, `${FILE}:Daily Plan`],
      }),
    ).toEqual({ ok: true });
  });

  it('asks for the section right before one, and has nothing to ask where the outline has no neighbour', async () => {
    const c = ask('Budget', 'before')!;
    expect(c.plan.answer).toBe('Daily Plan');
    expect((await reader.read({ question: inUserVoice(c.question), answerType: 'text', records })).answer).toBe('Daily Plan');
    // "Boots" is the only section at its level under "Packing List"; the document's own title names no section of it.
    expect(ask('Boots', 'after')).toBeUndefined();
    expect(ask('Boots', 'before')).toBeUndefined();
    expect(ask(ROOT, 'after')).toBeUndefined();
    expect(ask('Packing List', 'before')).toBeUndefined();
  });

  it('asks nothing of a document no conversation shared: its title and the heading would find the section for any retriever', () => {
    const unshared = [
      turn('c1:1', 'user', '2024-10-09T18:00:00Z', 'c1', 'User: Can you help me tidy up my trip notes?'),
      ...records.slice(1),
    ];
    const g = buildRecordGraph(unshared);
    const c = createRuleContext(g);
    expect(ask('Packing List', 'after', c, g)).toBeUndefined();
    expect(ask('Budget', 'before', c, g)).toBeUndefined();
  });

  it('the reader answers from what it is shown: not without the neighbour, not for a heading the document lacks', async () => {
    const question = inUserVoice(ask('Packing List', 'after')!.question);
    const withoutNeighbour = records.filter((r) => r.title !== 'Daily Plan' && r.title !== 'Budget');
    expect((await reader.read({ question, answerType: 'text', records: withoutNeighbour })).answerable).toBe(false);
    // A heading the shared document does not have names nothing.
    const renamed = question.replace('“Packing List”', '“Kit List”');
    expect((await reader.read({ question: renamed, answerType: 'text', records })).answerable).toBe(false);
  });
});
