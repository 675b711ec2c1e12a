import { describe, expect, it } from 'vitest';
import type { SourceRecord } from '../sandbox/contract.ts';
import type { History } from '../src/history/record.ts';
import { generateSupervision } from '../src/supervision/generate.ts';
import { createOfflineBlindReader } from '../src/supervision/offline-reader.ts';
import { checkPlan } from '../src/supervision/plan-checks.ts';
import { buildRecordGraph } from '../src/supervision/record-graph.ts';
import { describeQuestion } from '../src/supervision/rule-based/descriptions.ts';
import { feelingCandidate, feelingQuestion, feelingsOf } from '../src/supervision/rule-based/feelings.ts';
import { createRuleContext } from '../src/supervision/rule-based/generator.ts';
import { turn } from './helpers/turn.ts';

// Mia and Leo over four sessions: how each felt about things, how they described what they did, and statements
// that name no askable thing.
const records: SourceRecord[] = [
  turn('S1:1', 'Mia', '2023-03-04T10:00:00', 's1', "I made this bowl in my class. I'm pretty proud of this bowl!"),
  turn('S1:2', 'Leo', '2023-03-04T10:00:00', 's1', "It looks great. I'm so proud of you, and I'm proud of my kids too."),
  turn('S1:3', 'Mia', '2023-03-04T10:00:00', 's1', "I'm super excited to meet other artists at the fair."),
  turn('S2:1', 'Leo', '2023-04-12T10:00:00', 's2', 'We got into a car accident. I was really scared after the accident.'),
  turn('S2:2', 'Mia', '2023-04-12T10:00:00', 's2', "Oh no! I'm glad you're okay. I was nervous about the exhibition, honestly."),
  turn('S3:1', 'Mia', '2023-05-20T10:00:00', 's3', 'The exhibition went fine. Funny, I was excited about the exhibition too.'),
  turn('S3:2', 'Leo', '2023-05-20T10:00:00', 's3', "I'm passionate about painting landscapes. Do you feel nervous about the fair?"),
  turn('S4:1', 'Mia', '2023-06-02T10:00:00', 's4', 'I went to a poetry reading last Friday and it was really powerful!'),
  turn('S4:2', 'Leo', '2023-06-02T10:00:00', 's4', 'I visited the old harbor. It was so much fun.'),
  turn('S4:3', 'Leo', '2023-06-02T10:00:00', 's4', 'Then I joined a rowing club. It was inspiring, honestly.'),
];
const graph = buildRecordGraph(records);
const ctx = createRuleContext(graph);
const reader = createOfflineBlindReader();
const asked = (id: string): string[] => feelingsOf(records.find((r) => r.id === id)!).map((f) => `${feelingQuestion(f)} ${f.feeling}`);

describe('feelings read from first-person statements', () => {
  it('names the thing as a later question would, and the feeling without its intensifiers', () => {
    expect(asked('S1:1')).toEqual(['How does Mia feel about the bowl? proud']);
    expect(asked('S1:3')).toEqual(['How does Mia feel about meeting other artists at the fair? excited']);
    expect(asked('S2:1')).toEqual(['How did Leo feel after the accident? scared']);
    expect(asked('S3:2')).toEqual(['How does Leo feel about painting landscapes? passionate']);
  });

  it('skips what a question cannot name: a person addressed, the speaker\'s own "my …", a question', () => {
    expect(asked('S1:2')).toEqual([]);
  });
});

describe('feeling questions', () => {
  it('asks one with its statement as evidence, and the blind reader recovers the feeling from the history', async () => {
    const f = feelingsOf(records[3]!)[0]!;
    const c = feelingCandidate(ctx, f)!;
    expect(c.question).toBe('How did Leo feel after the accident?');
    expect(c.plan.answer).toBe('scared');
    expect(c.plan.evidence.map((e) => e.record)).toEqual(['S2:1']);
    const pc = checkPlan(c.plan, {
      bundle: new Set(records.map((r) => r.id)),
      records: new Map(records.map((r) => [r.id, r])),
      allowedTypes: new Set(['single-hop']),
    });
    expect(pc.ok).toBe(true);
    const reading = await reader.read({ question: c.question, answerType: 'text', records });
    expect(reading).toMatchObject({ answerable: true, answer: 'scared', citations: ['S2:1'] });
  });

  it('asks nothing when the history gives two feelings about the same thing', async () => {
    const nervous = feelingsOf(records[4]!).find((f) => f.cause === 'the exhibition')!;
    expect(nervous.feeling).toBe('nervous');
    expect(feelingCandidate(ctx, nervous)).toBeUndefined();
    const reading = await reader.read({ question: feelingQuestion(nervous), answerType: 'text', records });
    expect(reading.answer).not.toBe('nervous');
  });
});

describe('how someone described what they did', () => {
  const clauses = (id: string) => ctx.clauses().of(graph.index.get(id)!);

  it('reads the word from the same sentence or the next one, and the blind reader recovers it', async () => {
    const asked: string[] = [];
    for (const id of ['S4:1', 'S4:3']) {
      const c = describeQuestion(ctx, clauses(id)[0]!)!;
      expect(c.plan.evidence.map((e) => e.record)).toEqual([id]);
      const reading = await reader.read({ question: c.question, answerType: 'text', records });
      expect(reading).toMatchObject({ answerable: true, answer: c.plan.answer, citations: [id] });
      asked.push(`${c.question} ${c.plan.answer}`);
    }
    expect(asked).toEqual([
      'How did Mia describe going to a poetry reading? powerful',
      'How did Leo describe joining a rowing club? inspiring',
    ]);
  });

  it('asks nothing when the words after the event are not one describing adjective', () => {
    expect(clauses('S4:2').map((s) => describeQuestion(ctx, s))).toEqual([undefined]);
  });
});

describe('the offline generator on a conversation between people', () => {
  const history: History = { id: 'feelings', source: 'test', format: 'jsonl', records, qa: [], unresolvedEvidence: [] };

  it('asks how someone felt', async () => {
    const { items } = await generateSupervision(history, { mode: 'offline', n: 40, seed: 2 });
    const felt = items.filter((it) => it.checks?.template === 'feeling');
    expect(felt.length).toBeGreaterThan(0);
    const valid = ['S1:1', 'S1:3', 'S2:1', 'S3:2'].flatMap(asked);
    for (const it of felt) expect(valid).toContain(`${it.question} ${it.answer}`);
  });
});
