import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../src/history/load.ts';
import { normaliseDiaId, parseDiaRange, splitLocomoEvidence, LOCOMO_UNANSWERABLE } from '../src/history/loaders/locomo.ts';
import { parseLocomoDateTime, parseLongMemEvalDate, isDateAnswer } from '../src/text/dataset-dates.ts';
import { inferAnswerType } from '../src/history/answer-type.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');

describe('dates', () => {
  it('parses LoCoMo session date-times to ISO', () => {
    expect(parseLocomoDateTime('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00');
    expect(parseLocomoDateTime('12:05 am on 10 June, 2023')).toBe('2023-06-10T00:05:00');
    expect(parseLocomoDateTime('12:30 pm on 1 January, 2024')).toBe('2024-01-01T12:30:00');
    expect(parseLocomoDateTime('10:04 am on 19 October, 2023')).toBe('2023-10-19T10:04:00');
    expect(parseLocomoDateTime('1:56 pm on 31 February, 2023')).toBeUndefined();
    expect(parseLocomoDateTime('yesterday')).toBeUndefined();
  });
  it('parses LongMemEval dates', () => {
    expect(parseLongMemEvalDate('2023/05/25 (Thu) 20:21')).toBe('2023-05-25T20:21:00');
    expect(parseLongMemEvalDate('2023/05/25')).toBe('2023-05-25');
  });
  it('types answers conservatively', () => {
    expect(inferAnswerType('3')).toBe('number');
    expect(inferAnswerType('2022')).toBe('number');
    expect(inferAnswerType('Four')).toBe('number');
    expect(inferAnswerType('7 May 2023')).toBe('date');
    expect(inferAnswerType('September 23, 2024')).toBe('date');
    expect(inferAnswerType('2024-05-20')).toBe('date');
    expect(inferAnswerType('The sunday before 25 May 2023')).toBe('text');
    expect(inferAnswerType('pottery, camping')).toBe('text');
    expect(isDateAnswer('May 13')).toBe(true);
    expect(isDateAnswer('Mayday 13')).toBe(false);
  });
});

describe('LoCoMo evidence ids', () => {
  it('splits and normalises the malformed forms found in the data', () => {
    expect(splitLocomoEvidence('D8:6; D9:17')).toEqual(['D8:6', 'D9:17']);
    expect(splitLocomoEvidence('D1:3 D1:5')).toEqual(['D1:3', 'D1:5']);
    expect(normaliseDiaId('D30:05')).toBe('D30:5');
    expect(normaliseDiaId('D:11:26')).toBe('D11:26');
    expect(normaliseDiaId('D')).toBeUndefined();
  });
  it('keeps ranges whole, splits lists of them and strips stray punctuation', () => {
    expect(splitLocomoEvidence('D12:3-D12:5')).toEqual(['D12:3-D12:5']);
    expect(splitLocomoEvidence('D12:11-D12:14;D13:25-D13:33')).toEqual(['D12:11-D12:14', 'D13:25-D13:33']);
    expect(splitLocomoEvidence('D2:3 - D2:4, D3:2 – D3:3')).toEqual(['D2:3-D2:4', 'D3:2-D3:3']);
    expect(splitLocomoEvidence('D5:3.')).toEqual(['D5:3']);
    expect(splitLocomoEvidence('(D5:3); .')).toEqual(['D5:3']);
    expect(parseDiaRange('D12:3-D12:05')).toEqual(['D12:3', 'D12:5']);
    expect(parseDiaRange('D12:3-5')).toEqual(['D12:3', 'D12:5']);
    expect(parseDiaRange('D12:30-D13:2')).toEqual(['D12:30', 'D13:2']);
    expect(parseDiaRange('D12:3')).toBeUndefined();
    expect(parseDiaRange('D12:3-X')).toBeUndefined();
  });
});

describe('LoCoMo loader', () => {
  it('builds one history per sample with turns, captions and session times', async () => {
    const path = resolve(FIX, 'locomo-mini.json');
    const [h, h2] = await loadHistories(`locomo:${path}`);
    expect(h!.id).toBe('conv-1');
    expect(h!.source).toBe(`locomo:${path}#conv-1`);
    expect(h!.records.map((r) => r.id)).toEqual(['D1:1', 'D1:2', 'D1:3', 'D2:1', 'D2:2']);
    const photo = h!.records[1]!;
    expect(photo).toMatchObject({
      kind: 'turn',
      speaker: 'Ben',
      thread: 'session_1',
      time: '2023-05-08T13:56:00',
      text: 'Look at my new bowl! [shares a photo: a photo of a black bowl]',
    });
    expect(photo.meta).toMatchObject({ blipCaption: 'a photo of a black bowl', imageQuery: 'black bowl' });
    expect(h!.records[3]).toMatchObject({ thread: 'session_2', time: '2023-06-10T00:05:00' });
    expect(h2!.records).toHaveLength(1);
  });
  it('maps QA, answers and evidence, listing every unresolved reference', async () => {
    const [h] = await loadHistories(`locomo:${resolve(FIX, 'locomo-mini.json')}#conv-1`);
    const qa = h!.qa;
    expect(qa.map((q) => q.id)).toEqual(['conv-1:q0', 'conv-1:q1', 'conv-1:q2', 'conv-1:q3', 'conv-1:q4']);
    expect(qa.map((q) => q.category)).toEqual(['2', '4', '1', '5', '2']);
    expect(qa[0]).toMatchObject({ answer: 'The Sunday before 8 May 2023', answerType: 'text', evidence: [{ record: 'D1:1' }] });
    expect(qa[0]!.date).toBeUndefined();
    expect(qa[1]).toMatchObject({ answer: '3', answerType: 'number', evidence: [{ record: 'D2:1' }] });
    expect(qa[2]!.evidence.map((e) => e.record)).toEqual(['D1:1', 'D1:2', 'D2:1']);
    expect(qa[2]!.meta).toMatchObject({ evidenceRefs: 6, evidenceApproximate: 1 });
    expect(qa[3]).toMatchObject({ answer: LOCOMO_UNANSWERABLE, meta: { adversarialAnswer: 'Yes' } });
    expect(qa[4]).toMatchObject({ answerType: 'date', evidence: [] });
    expect(h!.unresolvedEvidence).toEqual([
      { qa: 'conv-1:q2', ref: 'D', reason: "'D' is not a dia_id (expected D<session>:<turn>)" },
      { qa: 'conv-1:q2', ref: 'D2:9', reason: 'turn 9 is past the end of session 2 (2 turns)' },
      { qa: 'conv-1:q2', ref: 'D7:1', reason: 'session 7 does not exist' },
    ]);
  });
  it('expands ranges within and across sessions and lists what still cannot resolve', async () => {
    const [h] = await loadHistories(`locomo:${resolve(FIX, 'locomo-ranges.json')}`);
    const ev = h!.qa.map((q) => q.evidence.map((e) => e.record));
    expect(ev).toEqual([
      ['D1:1'],
      ['D2:3', 'D2:4'],
      ['D2:1', 'D2:2', 'D3:1'],
      // D1:3-D2:2: the rest of session 1, then the start of session 2.
      ['D1:3', 'D2:1', 'D2:2'],
      ['D2:3', 'D2:4', 'D3:2', 'D3:3'],
      ['D3:1'],
    ]);
    expect(h!.qa.map((q) => q.meta?.evidenceRefs)).toEqual([1, 1, 2, 1, 2, 3]);
    expect(h!.qa.map((q) => q.meta?.evidenceApproximate)).toEqual([1, undefined, undefined, undefined, undefined, 1]);
    expect(h!.unresolvedEvidence).toEqual([
      { qa: 'conv-r:q5', ref: 'D3:2-D3:9', reason: "range 'D3:2-D3:9': turn 9 is past the end of session 3 (3 turns)" },
      { qa: 'conv-r:q5', ref: 'D3:3-D3:1', reason: "range 'D3:3-D3:1' ends before it starts" },
    ]);
  });
});
