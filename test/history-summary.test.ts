import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadHistories } from '../src/history/load.ts';
import { summarizeHistories, summarizeHistory, HistoriesSummarySchema } from '../src/history/summary.ts';
import { countTokens } from '../src/text/text.ts';

const FIX = resolve(fileURLToPath(new URL('.', import.meta.url)), 'fixtures', 'history');

describe('summarizeHistory', () => {
  it('counts kinds, threads, time span, tokens, QA and evidence of the mini RHELM persona', async () => {
    const [h] = await loadHistories(`rhelm:${resolve(FIX, 'rhelm-mini')}`);
    const s = summarizeHistory(h!);
    expect(s.records).toBe(15);
    expect(s.recordsByKind).toEqual({ document: 7, email: 3, turn: 5 });
    expect(s.threads).toBe(6);
    expect(s.time).toEqual({ first: '2024-03-01', last: '2024-03-05T10:30:00', recordsWithTime: 15 });
    const tokens = h!.records.reduce((n, r) => n + countTokens(r.text), 0);
    expect(s.tokens.total).toBe(tokens);
    expect(s.tokens.meanPerRecord).toBeCloseTo(tokens / 15);
    expect(s.qa).toEqual({ total: 5, byCategory: { attachment: 2, fact: 1, mixed: 1, temporal: 1 } });
    expect(s.evidence).toMatchObject({ refs: 21, resolved: 15, unresolved: 6, links: 15, approximate: 7 });
    expect(s.evidence.unresolvedList).toHaveLength(6);
  });
  it('adds up several histories, sorting numeric categories numerically', async () => {
    const hs = await loadHistories(`locomo:${resolve(FIX, 'locomo-mini.json')}`);
    const s = summarizeHistories(hs);
    expect(HistoriesSummarySchema.safeParse(s).success).toBe(true);
    expect(s.total).toMatchObject({ histories: 2, records: 6, threads: 3, qa: { total: 5 } });
    expect(Object.keys(s.total.qa.byCategory)).toEqual(['1', '2', '4', '5']);
    expect(s.total.qa.byCategory).toEqual({ 1: 1, 2: 2, 4: 1, 5: 1 });
    expect(s.total.time).toEqual({ first: '2023-05-08T13:56:00', last: '2024-01-01T15:00:00', recordsWithTime: 6 });
    expect(s.total.evidence).toMatchObject({ refs: 9, resolved: 6, unresolved: 3 });
    expect(s.total.evidence.unresolvedList[0]).toEqual({ history: 'conv-1', qa: 'conv-1:q2', ref: 'D', reason: expect.any(String) });
  });
  it('handles histories without QA or times', async () => {
    const [alice, bob] = await loadHistories(`jsonl:${resolve(FIX, 'records.jsonl')}`);
    const s = summarizeHistory(bob!);
    expect(s).toMatchObject({
      records: 1,
      recordsByKind: { note: 1 },
      threads: 0,
      time: { recordsWithTime: 0 },
      qa: { total: 0, byCategory: {} },
    });
    expect(s.time.first).toBeUndefined();
    expect(summarizeHistory(alice!).evidence).toEqual({
      refs: 0,
      resolved: 0,
      unresolved: 0,
      links: 0,
      approximate: 0,
      unresolvedList: [],
    });
  });
});
