import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { QAItem } from '../src/history/record.ts';
import { checkAudit } from '../src/supervision/audit.ts';
import { checkBlindReading } from '../src/supervision/blind-recovery.ts';
import { sampleBundles } from '../src/supervision/bundles.ts';
import { Deduper } from '../src/supervision/dedupe.ts';
import { checkPlan } from '../src/supervision/plan-checks.ts';
import type { AnswerPlan } from '../src/supervision/plan.ts';
import { loadPrompt } from '../src/supervision/prompts.ts';
import { checkQuestion } from '../src/supervision/question-checks.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { locateQuote, verifySpan } from '../src/supervision/spans.ts';
import { splitByBundle } from '../src/supervision/split.ts';

const records = JSON.parse(readFileSync(new URL('./fixtures/supervision/mini-history.json', import.meta.url), 'utf8')) as SourceRecord[];
const byId = new Map(records.map((r) => [r.id, r]));
const all = new Set(records.map((r) => r.id));

const goodPlan: AnswerPlan = {
  questionType: 'single-hop',
  intent: 'the distance Evan runs with his greyhound each morning',
  answer: '5 miles',
  answerType: 'number',
  facts: [{ record: 'D1:3', quote: 'she already runs 5 miles with me every morning', statement: 'Biscuit runs 5 miles each morning' }],
  evidence: [{ record: 'D1:3', contribution: 'states the distance' }],
  operations: ['lookup'],
};

describe('locateQuote', () => {
  it('finds exact quotes and normalised ones, returning offsets into the original text', () => {
    const text = 'She said “it’s  fine” — really.';
    expect(locateQuote(text, 'said')).toEqual([4, 8]);
    const span = locateQuote(text, '"it\'s fine" - really')!;
    // the quoter's wrapping quote mark is not part of the match; everything else maps back to the original characters
    expect(text.slice(span[0], span[1])).toBe('it’s  fine” — really');
    expect(locateQuote(text, 'not there')).toBeUndefined();
    expect(verifySpan(text, span, '"it\'s fine" - really')).toBe(true);
    expect(verifySpan(text, [0, 99])).toBe(false);
  });
});

describe('checkPlan', () => {
  const ctx = { bundle: all, records: byId };
  it('accepts a grounded plan and records the quote offsets', () => {
    const r = checkPlan(goodPlan, ctx);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [s, e] = r.evidence[0]!.span!;
    expect(byId.get('D1:3')!.text.slice(s, e)).toBe('she already runs 5 miles with me every morning');
  });
  it('rejects a quote that is not in its record', () => {
    const plan = { ...goodPlan, facts: [{ ...goodPlan.facts[0]!, quote: 'she runs 10 miles every evening' }] };
    expect(checkPlan(plan, ctx)).toMatchObject({ ok: false, reason: 'plan:quote-not-in-record' });
  });
  it('rejects records outside the bundle, unused evidence, and a wrong answer type', () => {
    expect(checkPlan(goodPlan, { ...ctx, bundle: new Set(['D1:1']) })).toMatchObject({ ok: false, reason: 'plan:record-not-in-bundle' });
    const unused = { ...goodPlan, evidence: [...goodPlan.evidence, { record: 'D1:1', contribution: 'context' }] };
    expect(checkPlan(unused, ctx)).toMatchObject({ ok: false, reason: 'plan:unused-evidence-record' });
    expect(checkPlan({ ...goodPlan, answer: 'Biscuit' }, ctx)).toMatchObject({ ok: false, reason: 'plan:answer-type-mismatch' });
    expect(checkPlan({ ...goodPlan, questionType: 'false-premise' }, ctx)).toMatchObject({ ok: false, reason: 'plan:incomplete' });
    expect(checkPlan(goodPlan, { ...ctx, allowedTypes: new Set(['temporal'] as const) })).toMatchObject({
      ok: false,
      reason: 'plan:wrong-type',
    });
  });
});

describe('checkQuestion', () => {
  it('drops leaks, record ids and questions about the material', () => {
    expect(checkQuestion('How far does Evan run with Biscuit each morning?', '5 miles', 'number', all)).toEqual({ ok: true });
    expect(checkQuestion('Does Evan run 5 miles with Biscuit?', '5 miles', 'number', all)).toMatchObject({
      reason: 'question:answer-leak',
    });
    expect(checkQuestion('What does D1:3 say about running?', '5 miles', 'number', all)).toMatchObject({ reason: 'question:record-id' });
    expect(checkQuestion('According to the passage above, how far does Evan run?', '5 miles', 'number', all)).toMatchObject({
      reason: 'question:not-standalone',
    });
    expect(checkQuestion('What is the name of the greyhound Evan adopted?', 'Biscuit', 'text', all)).toEqual({ ok: true });
    expect(checkQuestion('Which dog, Biscuit, did Evan adopt?', 'Biscuit', 'text', all)).toMatchObject({ reason: 'question:answer-leak' });
  });

  it('drops a date answer the question writes in another form, and keeps a coarser date', () => {
    const asked = 'What date does the document “Calendar Change Log – June 3, 2024” give in the part about the move?';
    expect(checkQuestion(asked, '3 June 2024', 'date', all)).toMatchObject({
      reason: 'question:answer-leak',
      detail: expect.stringContaining('June 3, 2024'),
    });
    expect(checkQuestion('What date do the notes (2024-05-09) give for the market visit?', '9 May 2024', 'date', all)).toMatchObject({
      reason: 'question:answer-leak',
    });
    expect(checkQuestion('On which day in May 2024 did I visit the market?', '9 May 2024', 'date', all)).toEqual({ ok: true });
    expect(checkQuestion('What did I buy on 9 May 2024?', 'wild garlic', 'text', all)).toEqual({ ok: true });
  });
});

describe('checkAudit', () => {
  const judgments = [
    { aspect: 'answer-support' as const, verdict: 'supported' as const, rationale: 'D1:3 says 5 miles' },
    { aspect: 'question-plan-consistency' as const, verdict: 'supported' as const, rationale: 'asks the distance' },
    { aspect: 'fact-support' as const, target: 'fact:1', verdict: 'supported' as const, rationale: 'quoted' },
    { aspect: 'contribution' as const, target: 'D1:3', verdict: 'supported' as const, rationale: 'gives the distance' },
  ];
  it('passes only when every required judgment is present and supported', () => {
    expect(checkAudit({ judgments }, goodPlan)).toEqual({ ok: true });
    expect(checkAudit({ judgments: judgments.slice(0, 3) }, goodPlan)).toMatchObject({ ok: false, reason: 'audit:missing-judgment' });
    const unclear = judgments.map((j) => (j.aspect === 'fact-support' ? { ...j, verdict: 'unclear' as const } : j));
    expect(checkAudit({ judgments: unclear }, goodPlan)).toMatchObject({ ok: false, reason: 'audit:unsupported' });
  });
});

describe('checkBlindReading', () => {
  const ref = { answer: '5 miles', answerType: 'number' as const, evidenceRecords: ['D1:3'] };
  it('needs answerable, a type-normalised match and every evidence record cited', () => {
    expect(checkBlindReading({ answerable: true, answer: 'five miles', citations: ['D1:3', 'D1:1'] }, ref)).toEqual({ ok: true });
    expect(checkBlindReading({ answerable: false, answer: '', citations: [] }, ref)).toMatchObject({ reason: 'blind:unanswerable' });
    expect(checkBlindReading({ answerable: true, answer: '6 miles', citations: ['D1:3'] }, ref)).toMatchObject({
      reason: 'blind:answer-mismatch',
    });
    expect(checkBlindReading({ answerable: true, answer: '5 miles', citations: ['D1:1'] }, ref)).toMatchObject({
      reason: 'blind:missing-citation',
    });
  });
});

describe('record graph and bundles', () => {
  const graph = buildRecordGraph(records, { lexicalThreshold: 0.2 });
  const neighbours = (id: string, kind: string) =>
    graph.edges[graph.index.get(id)!]!.filter((e) => e.kind === kind).map((e) => graph.records[e.to]!.id);
  it('joins adjacent turns, uploads, e-mail subjects and lexical overlap', () => {
    expect(neighbours('D1:2', 'adjacent').sort()).toEqual(['D1:1', 'D1:3']);
    expect(neighbours('D3:1', 'upload')).toEqual(['doc:care-plan:Overview']);
    expect(neighbours('E1', 'subject')).toEqual(['E2']);
    expect(graph.edgeCounts.lexical).toBeGreaterThan(0);
  });
  it('samples connected bundles within the token budget, deterministically', () => {
    const a = sampleBundles(graph, { count: 4, tokenBudget: 200, seed: 3 });
    const b = sampleBundles(graph, { count: 4, tokenBudget: 200, seed: 3 });
    expect(a.map((x) => x.id)).toEqual(b.map((x) => x.id));
    for (const bundle of a) {
      expect(bundle.tokens).toBeLessThanOrEqual(200);
      expect(bundle.records).toContain(bundle.seed);
      expect(bundle.path.length).toBe(bundle.records.length - 1);
    }
  });
});

describe('split and dedupe', () => {
  const item = (id: string, bundle: string, record: string): QAItem & { b: string } => ({
    id,
    history: 'h',
    question: `Question ${id}?`,
    answer: id,
    answerType: 'text',
    evidence: [{ record }],
    b: bundle,
  });
  it('keeps bundles, and bundles sharing an evidence record, on one side', () => {
    const items = [
      item('a', 'b1', 'r1'),
      item('b', 'b1', 'r2'),
      item('c', 'b2', 'r2'),
      item('d', 'b3', 'r3'),
      item('e', 'b4', 'r4'),
      item('f', 'b5', 'r5'),
    ];
    const out = splitByBundle(items, 0.4, (it) => (it as QAItem & { b: string }).b);
    const side = new Map(out.map((o) => [o.id, o.split]));
    expect(side.get('a')).toBe(side.get('b'));
    expect(side.get('b')).toBe(side.get('c'));
    expect(new Set(out.map((o) => o.split))).toEqual(new Set(['train', 'val']));
  });
  it('drops repeated questions and same-answer-same-evidence items', () => {
    const d = new Deduper();
    const base = {
      question: 'Where did Evan adopt Biscuit?',
      answer: 'Riverside Shelter',
      answerType: 'text' as const,
      evidence: [{ record: 'D1:1' }],
    };
    expect(d.add(base)).toBe(true);
    expect(d.add({ ...base, question: 'where did evan adopt biscuit' + '?' })).toBe(false);
    expect(d.add({ ...base, question: 'From which shelter did Evan get his greyhound?' })).toBe(false);
    expect(
      d.add({ ...base, answer: 'Maple Animal Clinic', evidence: [{ record: 'D2:1' }], question: 'Which clinic did Biscuit visit?' }),
    ).toBe(true);
  });
});

describe('prompts', () => {
  it('each role has a versioned prompt file', () => {
    const versions = { planner: 10, questioner: 6, auditor: 2, reader: 2 } as const;
    for (const [role, n] of Object.entries(versions) as Array<[keyof typeof versions, number]>) {
      expect(loadPrompt(role).version).toBe(`${role}@${n}`);
    }
  });
});
