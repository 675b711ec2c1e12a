/**
 * A person's own document named by its kind and month ("In my packing guide from October 2024, …"), as people ask of
 * their documents without the conversation that shared it: the kind phrase read from the title, a description that
 * must name one document, and the blind reader finding the document by it.
 */
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { createRng } from '../src/supervision/rng.ts';
import { documentDescription, kindPhrase } from '../src/supervision/rule-based/document-description.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { sectionOrderQuestion } from '../src/supervision/rule-based/section-order.ts';
import type { RuleCandidate } from '../src/supervision/rule-based/templates.ts';
import { inUserVoice } from '../src/supervision/rule-based/voice.ts';
import { passesChecks } from './helpers/candidate-checks.ts';
import { documentSection, turn } from './helpers/turn.ts';

describe('kindPhrase', () => {
  it('reads the kind of document a title names, without its owner, filler words or subject', () => {
    expect(kindPhrase('Harz Weekend: Packing and Activity Guide')).toBe('packing and activity guide');
    expect(kindPhrase('Mara Lind’s Bean Soup – Meal Preparation Note')).toBe('meal preparation note');
    expect(kindPhrase('Incident Report: Projector Failure at the Library')).toBe('incident report');
    expect(kindPhrase('Choir Rehearsal Notes: Comprehensive Update Log')).toBe('choir rehearsal notes');
    expect(kindPhrase('Garden Project: Comprehensive Update Log')).toBe('update log');
    // titles capitalise every word: only acronyms and inner capitals keep their case
    expect(kindPhrase('EU Policy Meeting Notes')).toBe('EU policy meeting notes');
    expect(kindPhrase('OneDrive Cleanup Log')).toBe('OneDrive cleanup log');
  });
  it('has none for a title that names no kind, names only a kind, or dates it', () => {
    expect(kindPhrase('Weekend Hiking Trip to the Harz')).toBeUndefined();
    expect(kindPhrase('Meeting Minutes')).toBe('meeting minutes');
    expect(kindPhrase('Notes')).toBeUndefined();
    expect(kindPhrase('Garden Log 2024')).toBeUndefined();
    expect(kindPhrase('An Extremely Long and Winding Reading Log')).toBeUndefined();
  });
});

const GUIDE = 'harz.md';
const guide = documentSection(GUIDE, '2024-10-10T09:00:00Z', '');
const TITLE = 'Harz Weekend: Packing and Activity Guide';
const records: SourceRecord[] = [
  turn('c1:1', 'user', '2024-10-09T18:00:00Z', 'c1', 'User: Can you help me tidy up my notes for the weekend?'),
  guide(1, 1, TITLE, 'Two days of walking from Wernigerode, with a night in a mountain hut.'),
  guide(2, 2, 'Packing List', 'Rain jacket, head torch, two litres of water and a paper map.', TITLE),
  guide(3, 2, 'Daily Plan', 'Saturday: Brocken summit by noon. Sunday: the Ilse valley back to the car.', TITLE),
  guide(4, 2, 'Budget', 'Hut 45 euros, train 30 euros, food about 40 euros.', TITLE),
];
const reader = createOfflineBlindReader();

/** The first draw that names the document by its description and asks in `direction`. */
function described(rs: SourceRecord[], title: string, direction: 'after' | 'before'): RuleCandidate | undefined {
  const graph = buildRecordGraph(rs);
  const ctx = createRuleContext(graph);
  for (let seed = 0; seed < 60; seed++) {
    const q = sectionOrderQuestion(ctx, graph.index.get(`${GUIDE}:${title}`)!, createRng(`described:${seed}`));
    if (q?.question.startsWith('In my ') && q.question.includes(`right ${direction}`)) return q;
  }
  return undefined;
}

describe('a document named by its kind and month', () => {
  it('is asked about with no conversation sharing it; the evidence is its sections alone', async () => {
    const c = described(records, 'Packing List', 'after')!;
    expect(c.question).toBe('In my packing and activity guide from October 2024, which section comes right after “Packing List”?');
    expect(c.plan.answer).toBe('Daily Plan');
    expect(c.plan.evidence.map((e) => e.record)).toEqual([`${GUIDE}:Packing List`, `${GUIDE}:Daily Plan`]);
    expect(passesChecks(c, records, 'multi-hop')).toEqual({ plan: true, question: true });
    const asked = inUserVoice(c.question);
    const reading = await reader.read({ question: asked, answerType: 'text', records });
    expect(
      checkBlindReading(reading, {
        answer: 'Daily Plan',
        answerType: 'text',
        evidenceRecords: [`${GUIDE}:Packing List`, `${GUIDE}:Daily Plan`],
      }),
    ).toEqual({ ok: true });
  });

  it('is not used when another document of that month has the same kind', () => {
    const other = documentSection('eifel.md', '2024-10-20T09:00:00Z', '');
    const OTHER = 'Eifel Trip: Packing and Activity Guide';
    const both = [...records, other(1, 1, OTHER, 'A day on the Eifelsteig.'), other(2, 2, 'Route', 'Twelve kilometres.', OTHER)];
    const graph = buildRecordGraph(both);
    expect(documentDescription(createRuleContext(graph), graph.index.get(`${GUIDE}:Packing List`)!)).toBeUndefined();
    expect(described(both, 'Packing List', 'after')).toBeUndefined();
    // a month apart, each is named alone
    const later = both.map((r) => (r.thread === 'eifel.md' ? { ...r, time: '2024-11-02T09:00:00Z' } : r));
    const g2 = buildRecordGraph(later);
    expect(documentDescription(createRuleContext(g2), g2.index.get(`${GUIDE}:Packing List`)!)).toBe(
      'my packing and activity guide from October 2024',
    );
  });

  it('the reader finds the document by its kind and month, and by nothing else', async () => {
    const asked = 'In my packing and activity guide from October 2024, which section comes right before “Budget”?';
    expect((await reader.read({ question: asked, answerType: 'text', records })).answer).toBe('Daily Plan');
    // another kind, another month: no document of the records is meant
    for (const wrong of [asked.replace('packing and activity guide', 'incident report'), asked.replace('October', 'November')])
      expect((await reader.read({ question: wrong, answerType: 'text', records })).answerable).toBe(false);
    // without the title section the kind is read from a top-level section's parent
    const untitled = records.filter((r) => r.title !== TITLE);
    expect((await reader.read({ question: asked, answerType: 'text', records: untitled })).answer).toBe('Daily Plan');
  });
});
