/**
 * Span-aware delivery: a gold record cited with a quote counts as delivered only when the context carries the quote,
 * so a unit that keeps part of a long record (a turn without its reply) is not credited for words it dropped.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import { compileDesign } from '../src/design/compile.ts';
import { evalAnswererFrom, evalScorerFrom, summarizeTraces } from '../src/evaluate/eval-adapters.ts';
import { createEvalPool, evaluateProgram, type EvalPool } from '../src/evaluate/evaluate.ts';
import type { History, QAItem } from '../src/history/record.ts';
import type { CompiledProgram } from '../src/isolate/sandbox-api.ts';
import { spanAwareDelivered } from '../src/scoring/evidence-spans.ts';
import type { QuestionTrace } from '../src/scoring/trace.ts';

const USER = 'I finally booked the ferry to the islands for the second week of June with my cousin Marta';
const REPLY = 'That sounds wonderful, remember that the harbour office in Piraeus closes early on Sundays so pick up tickets on Saturday';
const TURN = `${USER}. ${REPLY}.`;

describe('spanAwareDelivered', () => {
  const evidence = (quote?: string) => [{ record: 't1', ...(quote ? { quote } : {}) }];

  it('keeps a record whose quote the context carries, by the eight-word rule for long quotes', () => {
    expect(spanAwareDelivered(`notes\n${USER}`, evidence('booked the ferry to the islands for the second week'), ['t1'])).toEqual(['t1']);
    // Eight consecutive words of a longer quote are enough, as for records.
    expect(spanAwareDelivered('the harbour office in Piraeus closes early on Sundays', evidence(REPLY), ['t1'])).toEqual(['t1']);
  });

  it('drops a record whose quote the context does not carry, however much else of the record it holds', () => {
    expect(spanAwareDelivered(USER, evidence(REPLY), ['t1', 'other'])).toEqual(['other']);
    // A short quote must appear whole.
    expect(spanAwareDelivered(USER, evidence('closes early on Sundays'), ['t1'])).toEqual([]);
  });

  it('leaves evidence without a quote, and records that are not evidence, to the record rule', () => {
    expect(spanAwareDelivered(USER, evidence(), ['t1'])).toEqual(['t1']);
    expect(spanAwareDelivered('', [], ['a', 'b'])).toEqual(['a', 'b']);
  });

  it('needs every quote cited from a record, and one occurrence for a quote cited twice', () => {
    const two = [
      { record: 't1', quote: 'booked the ferry' },
      { record: 't1', quote: 'closes early on Sundays' },
    ];
    expect(spanAwareDelivered(USER, two, ['t1'])).toEqual([]);
    expect(spanAwareDelivered(TURN, two, ['t1'])).toEqual(['t1']);
    const twice = [
      { record: 't1', quote: 'booked the ferry' },
      { record: 't1', quote: 'booked the ferry' },
    ];
    expect(spanAwareDelivered(USER, twice, ['t1'])).toEqual(['t1']);
  });
});

describe('evaluation credits only the delivered evidence words', () => {
  const records: SourceRecord[] = [
    { id: 't1', kind: 'turn', text: TURN, speaker: 'user', time: '2024-05-02T10:00:00Z', thread: 's1' },
    {
      id: 't2',
      kind: 'turn',
      text: 'My cousin Marta is a marine biologist who studies seagrass meadows along the coast near Nafplio in Greece.',
      speaker: 'user',
      time: '2024-05-03T10:00:00Z',
      thread: 's2',
    },
  ];
  const history: History = { id: 'sofia', source: 'test', format: 'jsonl', records, qa: [], unresolvedEvidence: [] };
  const item = (id: string, question: string, answer: string, quote?: string): QAItem => ({
    id,
    history: 'sofia',
    question,
    answer,
    answerType: 'text',
    generator: 'rule-based@test',
    evidence: [{ record: 't1', ...(quote ? { quote } : {}) }],
  });
  const questions = [
    item('q-reply', 'When does the harbour office close early?', 'on Sundays', 'the harbour office in Piraeus closes early on Sundays'),
    item(
      'q-user',
      'Who is going to the islands with the user?',
      'Marta',
      'booked the ferry to the islands for the second week of June with my cousin Marta',
    ),
    item('q-record', 'Who is going to the islands with the user?', 'Marta'),
  ];
  let pool: EvalPool;
  const programs: Record<string, CompiledProgram> = {};
  beforeAll(async () => {
    pool = createEvalPool({ size: 1 });
    for (const [name, path] of [
      ['whole', './fixtures/designs/good/tiny-bm25.ts'],
      ['half', './fixtures/eval-designs/first-half.ts'],
    ] as const) {
      const file = new URL(path, import.meta.url);
      const r = await compileDesign(readFileSync(file, 'utf8'), { fileName: file.pathname });
      if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
      programs[name] = r.program;
    }
  });
  afterAll(async () => {
    await pool?.close();
  });

  async function contextRecalls(program: CompiledProgram): Promise<Record<string, number | undefined>> {
    const scorer = evalScorerFrom(null);
    const r = await evaluateProgram({
      program,
      histories: [history],
      questions,
      budget: { tokens: 400 },
      answerer: evalAnswererFrom(null),
      score: scorer.score,
      judgeId: scorer.judgeId,
      summarize: summarizeTraces,
      pool,
    });
    lastTraces = r.traces;
    return Object.fromEntries(r.traces.map((t) => [t.question, t.scores?.contextRecall]));
  }
  let lastTraces: QuestionTrace[] = [];

  it('a design that keeps only the user half of a turn is not credited for a quote in the reply', async () => {
    expect(await contextRecalls(programs.whole!)).toEqual({ 'q-reply': 1, 'q-user': 1, 'q-record': 1 });
    // The half units carry t1 by the record rule: quote-less evidence still counts, the reply's quote does not.
    expect(await contextRecalls(programs.half!)).toEqual({ 'q-reply': 0, 'q-user': 1, 'q-record': 1 });
    // The trace still says what the context carried (what an app importing the design receives); only the credit differs.
    const reply = lastTraces.find((t) => t.question === 'q-reply')!;
    expect(reply.deliveredRecords).toContain('t1');
    expect(reply.creditedRecords).not.toContain('t1');
  });
});
