import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../src/history/load.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');

describe('LongMemEval loader', () => {
  it('reads the official schema: sessions, turn-level evidence, question date', async () => {
    const [run, pet] = await loadHistories(`longmemeval:${resolve(FIX, 'longmemeval-original.json')}`);
    expect(run!.id).toBe('q_run');
    expect(run!.records.map((r) => r.id)).toEqual(['answer_s1:1', 'answer_s1:2', 'answer_s2:1', 'answer_s2:2']);
    expect(run!.records[2]).toMatchObject({
      kind: 'turn',
      speaker: 'user',
      thread: 'answer_s2',
      time: '2023-05-27T10:20:00',
      meta: { hasAnswer: true },
    });
    expect(run!.qa).toHaveLength(1);
    expect(run!.qa[0]).toMatchObject({
      id: 'q_run',
      answer: '25:50',
      category: 'knowledge-update',
      date: '2023-06-01T00:58:00',
      evidence: [{ record: 'answer_s1:1' }, { record: 'answer_s2:1' }],
    });
    expect(pet!.qa[0]!.meta).toMatchObject({ abstention: true });
    expect(pet!.qa[0]!.evidence).toEqual([]);
    expect(pet!.unresolvedEvidence).toEqual([
      { qa: 'q_pet_abs', ref: 'answer_missing', reason: expect.stringContaining('answer session answer_missing is not in the haystack') },
    ]);
  });
  it('reads the reformatted samples, recovering sessions from date changes', async () => {
    const [h] = await loadHistories(resolve(FIX, 'longmemeval-reformatted.json'));
    expect(h!.id).toBe('multi-sessio-abc123');
    expect(h!.records.map((r) => [r.id, r.thread, r.time])).toEqual([
      ['session_1:1', 'session_1', '2023-05-01T09:00:00'],
      ['session_1:2', 'session_1', '2023-05-01T09:00:00'],
      ['session_2:1', 'session_2', '2023-05-08T18:30:00'],
      ['session_2:2', 'session_2', '2023-05-08T18:30:00'],
    ]);
    expect(h!.qa[0]).toMatchObject({
      id: 'multi-sessio-abc123:q1',
      answer: '5',
      answerType: 'number',
      evidence: [],
      meta: { evidenceAvailable: false },
    });
  });
});

describe('MemoryBank loader', () => {
  it('makes one history per user and one turn per query/response pair, without QA', async () => {
    const hs = await loadHistories(resolve(FIX, 'memory_bank_mini.json'));
    expect(hs.map((h) => h.id)).toEqual(['Emily', 'Frank']);
    const emily = hs[0]!;
    expect(emily.records.map((r) => r.id)).toEqual(['2023-04-27:1', '2023-04-27:2', '2023-04-28:1']);
    expect(emily.records[0]).toEqual({
      id: '2023-04-27:1',
      kind: 'turn',
      text: 'User: Hello, I am Emily.\nAssistant: Hello Emily.',
      thread: '2023-04-27',
      speaker: 'user',
      time: '2023-04-27',
    });
    expect(emily.qa).toEqual([]);
    expect((await loadHistories(`memorybank:${resolve(FIX, 'memory_bank_mini.json')}#Frank`)).map((h) => h.id)).toEqual(['Frank']);
  });
});
